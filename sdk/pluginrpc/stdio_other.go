//go:build !unix

package pluginrpc

import "os"

// pollableStdin returns os.Stdin where non-blocking pipes are not
// available.
func pollableStdin() *os.File { return os.Stdin }
