package pluginhost

import (
	"fmt"
	"io/fs"
	"syscall"
)

// changeStamp is the part of a file's print (offerPrint) that its owner
// cannot set back: its inode and the time of its last change (ctime),
// which every write and every utimes (touch -d) moves.
func changeStamp(info fs.FileInfo) string {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d\x00%d.%09d", st.Ino, st.Ctimespec.Sec, st.Ctimespec.Nsec)
}
