//go:build unix

package datadir

import (
	"bufio"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// lock flocks the data directory, then hearth.lock. flock locks belong to
// the open file, not the process: the kernel drops them when the last
// descriptor closes, so a crashed Hearth leaves no stale lock. Go opens
// files close-on-exec, so plugin processes never inherit them.
//
// A file system that cannot flock a directory (some NFS mounts) leaves
// the lock to hearth.lock alone, as before the directory lock: there,
// removing the file while Hearth runs lets a second one start.
func lock(dir string) (*Lock, bool, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, false, err
	}
	held, err := tryLock(d)
	if err != nil {
		d.Close()
		d = nil
	} else if !held {
		d.Close()
		return nil, false, nil
	}
	f, err := openLockFile(dir)
	if err != nil {
		if d != nil {
			d.Close()
		}
		return nil, false, err
	}
	if held, err = tryLock(f); err != nil || !held {
		f.Close()
		if d != nil {
			d.Close()
		}
		return nil, false, err
	}
	return &Lock{dir: d, file: f}, true, nil
}

// tryLock takes an exclusive flock on f without waiting.
func tryLock(f *os.File) (bool, error) {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, unix.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, unix.EINTR):
			continue
		default:
			return false, err
		}
	}
}

// holder returns the pid of the process that holds dir's lock: the
// kernel's word where it gives it (Linux's /proc/locks, right even when
// hearth.lock was removed), else the pid in hearth.lock; 0 if unknown.
func holder(dir string) int {
	if pid := flockHolder(dir); pid > 0 {
		return pid
	}
	return pidInFile(dir)
}

// flockHolder finds the flock on dir in /proc/locks, whose lines read
// "1: FLOCK  ADVISORY  WRITE <pid> <major>:<minor>:<inode> 0 EOF" (major
// and minor in hex); waiters have "->" after the number.
func flockHolder(dir string) int {
	fi, err := os.Stat(dir)
	if err != nil {
		return 0
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return 0 // not Linux
	}
	defer f.Close()
	dev := uint64(st.Dev) // int32 on some systems
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" || fields[3] != "WRITE" {
			continue
		}
		id := strings.Split(fields[5], ":")
		if len(id) != 3 {
			continue
		}
		major, err1 := strconv.ParseUint(id[0], 16, 32)
		minor, err2 := strconv.ParseUint(id[1], 16, 32)
		ino, err3 := strconv.ParseUint(id[2], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil ||
			uint32(major) != unix.Major(dev) || uint32(minor) != unix.Minor(dev) || ino != uint64(st.Ino) {
			continue
		}
		if pid, err := strconv.Atoi(fields[4]); err == nil && pid > 0 {
			return pid
		}
	}
	return 0
}
