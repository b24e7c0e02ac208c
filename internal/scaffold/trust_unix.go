//go:build unix

package scaffold

import (
	"fmt"
	"os"
	"syscall"
)

// CheckOwned returns why another user may have written one of paths, or
// nil: it belongs to a user other than this one and root, or anyone may
// write it (as /tmp). Hearth builds and runs code it finds only where no
// other user could have put it.
func CheckOwned(paths ...string) error {
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		if st.Mode().Perm()&0o002 != 0 {
			return fmt.Errorf("%s may be written by any user", p)
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() && sys.Uid != 0 {
			return fmt.Errorf("%s belongs to another user (uid %d)", p, sys.Uid)
		}
	}
	return nil
}
