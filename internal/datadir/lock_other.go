//go:build !unix && !windows

package datadir

import "os"

// tryLock always succeeds here: this build has no file lock, so two
// Hearth processes on one data directory are not prevented.
func tryLock(*os.File) (bool, error) { return true, nil }
