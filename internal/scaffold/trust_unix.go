//go:build unix

package scaffold

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// checkOwned returns why dir/go.mod cannot be trusted as a Hearth
// checkout, or nil: the folder or its go.mod may be written by another
// user (it belongs to one, other than root, or anyone may write it, as
// /tmp), who could then have Hearth build and run code of theirs.
func checkOwned(dir string) error {
	for _, p := range []string{dir, filepath.Join(dir, "go.mod")} {
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
