package datadir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// LockFile is the name, inside the data directory, of the file that
// records the pid of the lock's holder (on Windows, the lock itself).
const LockFile = "hearth.lock"

// ErrLocked means another process holds the data directory's lock.
var ErrLocked = errors.New("the data directory is in use by another Hearth")

// LockedError says who holds the lock. It matches ErrLocked with
// errors.Is.
type LockedError struct {
	Dir string
	PID int // 0 when the holder has not written its pid yet
}

// Error says who holds the lock and what to do, in English and Chinese.
func (e *LockedError) Error() string {
	pid, zh := "pid unknown", "pid 未知"
	if e.PID > 0 {
		pid = "pid " + strconv.Itoa(e.PID)
		zh = pid
	}
	return fmt.Sprintf("another Hearth (%s) is using %s and runs its plugins; stop it first, or give this one another --data-dir\n"+
		"另一个 Hearth（%s）正在使用 %s 并运行其插件；请先停止它，或用 --data-dir 指定另一个数据目录", pid, e.Dir, zh, e.Dir)
}

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// Lock is the held lock of a data directory. The kernel releases it when
// the process ends, however it ends (kill -9 too), so a stale lock file
// never blocks a later start.
type Lock struct {
	dir  *os.File // the data directory, where it is the lock (see lock)
	file *os.File // hearth.lock, which holds the pid (and is the lock elsewhere)
}

// Acquire takes the lock of dir without waiting: it returns a
// *LockedError naming the holder's pid when another process has it.
//
// On Unix the lock is on the directory itself, which stays in place while
// it holds Hearth's data: removing hearth.lock (say, taken for a stale
// lock) never lets a second process in. hearth.lock is locked
// too, so that a Hearth from before the directory lock, which locks only
// the file, and this one exclude each other, and it records the holder's
// pid for the message. On Windows the lock is on hearth.lock, which cannot
// be removed while it is open.
func Acquire(dir string) (*Lock, error) {
	l, held, err := lock(dir)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	if !held {
		// The holder writes its pid just after it locks; give it a moment.
		pid := holder(dir)
		for i := 0; pid == 0 && i < 20; i++ {
			time.Sleep(5 * time.Millisecond)
			pid = holder(dir)
		}
		return nil, &LockedError{Dir: dir, PID: pid}
	}
	if err := l.file.Truncate(0); err == nil {
		_, _ = l.file.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return l, nil
}

// Exclusive takes, without waiting, an exclusive lock of the file at
// path, creating it (0600), the way Acquire locks hearth.lock: flock on
// Unix, LockFileEx on Windows, none elsewhere (there it always succeeds).
// It returns the open file, whose Close releases the lock (as does the
// end of the process, however it ends), or held false when another open
// of the file has it: another process, or another Exclusive in this one.
// Other owners of files that one process must write alone (the search
// index's folder) take their lock with it.
func Exclusive(path string) (f *os.File, held bool, err error) {
	f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, err
	}
	if held, err = tryLock(f); err != nil || !held {
		f.Close()
		return nil, false, err
	}
	return f, true, nil
}

// openLockFile opens (creating it) the file that holds the pid.
func openLockFile(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the lock file: %w", err)
	}
	return f, nil
}

// pidInFile reads the pid the lock's holder wrote in hearth.lock.
func pidInFile(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, LockFile))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// Release gives the lock up. Closing the files releases it; the pid stays
// in hearth.lock, harmless, until the next holder overwrites it.
func (l *Lock) Release() error {
	if l == nil || l.file == nil {
		return nil
	}
	err := l.file.Close()
	if l.dir != nil {
		if derr := l.dir.Close(); err == nil {
			err = derr
		}
	}
	l.file, l.dir = nil, nil
	return err
}
