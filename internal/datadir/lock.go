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

// LockFile is the lock's name inside the data directory.
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
	f *os.File
}

// Acquire takes the lock of dir without waiting: it returns a
// *LockedError naming the holder's pid when another process has it. The
// lock file records the holder's pid for that message; the file is never
// removed (removing it would let two processes lock two different files).
func Acquire(dir string) (*Lock, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the lock file: %w", err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	if !held {
		f.Close()
		// The holder writes its pid just after it locks; give it a moment.
		pid := holder(path)
		for i := 0; pid == 0 && i < 20; i++ {
			time.Sleep(5 * time.Millisecond)
			pid = holder(path)
		}
		return nil, &LockedError{Dir: dir, PID: pid}
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &Lock{f: f}, nil
}

// holder reads the pid the lock's holder wrote.
func holder(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// Release gives the lock up. Closing the file releases it; the pid stays
// in the file, harmless, until the next holder overwrites it.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
