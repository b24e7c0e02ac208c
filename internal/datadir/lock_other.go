//go:build !unix && !windows

package datadir

import "os"

// lock always succeeds here: this build has no file lock, so two Hearth
// processes on one data directory are not prevented.
func lock(dir string) (*Lock, bool, error) {
	f, err := openLockFile(dir)
	if err != nil {
		return nil, false, err
	}
	return &Lock{file: f}, true, nil
}

// holder returns the pid in hearth.lock.
func holder(dir string) int { return pidInFile(dir) }

// tryLock always succeeds: this build has no file lock.
func tryLock(*os.File) (bool, error) { return true, nil }
