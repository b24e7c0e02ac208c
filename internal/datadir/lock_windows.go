//go:build windows

package datadir

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lock locks hearth.lock. Go opens files without FILE_SHARE_DELETE, so
// the file cannot be removed or replaced while the lock is held.
func lock(dir string) (*Lock, bool, error) {
	f, err := openLockFile(dir)
	if err != nil {
		return nil, false, err
	}
	held, err := tryLock(f)
	if err != nil || !held {
		f.Close()
		return nil, false, err
	}
	return &Lock{file: f}, true, nil
}

// tryLock locks one byte far past the pid the file holds, so the pid
// stays readable to the process that is refused. Windows releases the
// lock when the handle closes or the process ends.
func tryLock(f *os.File) (bool, error) {
	ol := &windows.Overlapped{OffsetHigh: 1}
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION):
		return false, nil
	default:
		return false, err
	}
}

// holder returns the pid in hearth.lock.
func holder(dir string) int { return pidInFile(dir) }
