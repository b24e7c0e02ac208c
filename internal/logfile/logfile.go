// Package logfile is Hearth's log file with a cap: when the file would
// grow past it, the file is moved aside (hearth.log to hearth.log.1, that
// to hearth.log.2, ...) and a new one begun, so the log never takes more
// than the cap times the number of files.
//
// Several processes may write the same log (hearth chat next to a hearth
// ask): each looks at the file's real size before it writes, and a process
// whose file was moved aside by another follows to the new one.
package logfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
)

// Defaults: 10 MiB a file, three files (the log and two old ones).
const (
	DefaultMaxBytes = 10 << 20
	DefaultFiles    = 3
)

// File is a capped log file; it is safe for concurrent use.
type File struct {
	path     string
	maxBytes int64
	files    int
	fsys     fileSystem

	mu     sync.Mutex
	f      file // nil after a failed open, tried again at the next write
	closed bool
}

// fileSystem is what File does to files: the operating system's, or in
// tests one that fails on cue.
type fileSystem interface {
	OpenFile(name string, flag int, perm fs.FileMode) (file, error)
	Stat(name string) (fs.FileInfo, error)
	Remove(name string) error
	Rename(oldpath, newpath string) error
}

// file is an open log file.
type file interface {
	Write(p []byte) (int, error)
	Stat() (fs.FileInfo, error)
	Close() error
}

// osFS is the operating system's file system.
type osFS struct{}

func (osFS) OpenFile(name string, flag int, perm fs.FileMode) (file, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return f, nil
}
func (osFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }
func (osFS) Remove(name string) error              { return os.Remove(name) }
func (osFS) Rename(oldpath, newpath string) error  { return os.Rename(oldpath, newpath) }

// Open opens or creates the log at path (mode 0600). maxBytes caps each
// file and files is how many are kept, the current one included; zero
// means the defaults.
func Open(path string, maxBytes int64, files int) (*File, error) {
	return openFS(path, maxBytes, files, osFS{})
}

func openFS(path string, maxBytes int64, files int, fsys fileSystem) (*File, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if files <= 0 {
		files = DefaultFiles
	}
	l := &File{path: path, maxBytes: maxBytes, files: files, fsys: fsys}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *File) open() error {
	f, err := l.fsys.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("opening the log file: %w", err)
	}
	l.f = f
	return nil
}

// Write appends p, moving the file aside first when p would take it past
// the cap. A single write longer than the cap is cut to it.
func (l *File) Write(p []byte) (int, error) {
	n := len(p)
	if int64(len(p)) > l.maxBytes {
		p = append(p[:l.maxBytes-1:l.maxBytes-1], '\n')
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return 0, fs.ErrClosed
	}
	if l.f == nil {
		if err := l.open(); err != nil {
			return 0, err
		}
	}
	size, err := l.size()
	if err != nil {
		return 0, err
	}
	if size > 0 && size+int64(len(p)) > l.maxBytes {
		if err := l.rotate(); err != nil && l.f == nil {
			return 0, err
		}
	}
	if _, err := l.f.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}

// size returns the size of the file at path, first following to it when
// another process has moved the one this process has open aside.
func (l *File) size() (int64, error) {
	fi, err := l.f.Stat()
	if err != nil {
		return 0, err
	}
	pi, err := l.fsys.Stat(l.path)
	if err == nil && os.SameFile(fi, pi) {
		return fi.Size(), nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	l.f.Close()
	if err := l.open(); err != nil {
		l.f = nil
		return 0, err
	}
	if fi, err = l.f.Stat(); err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// rotate moves path.N-2 to path.N-1, ..., path to path.1, dropping the
// oldest, and opens a new file at path. When a move fails the younger
// files stay where they are (moving them on would overwrite the one that
// did not move) and the log goes on in the file at path.
func (l *File) rotate() error {
	l.f.Close()
	l.f = nil
	name := func(i int) string {
		if i == 0 {
			return l.path
		}
		return fmt.Sprintf("%s.%d", l.path, i)
	}
	var errs []error
	if err := l.fsys.Remove(name(l.files - 1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, err)
	}
	for i := l.files - 2; i >= 0; i-- {
		if err := l.fsys.Rename(name(i), name(i+1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			break
		}
	}
	if err := l.open(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("rotating the log: %w", err)
	}
	return nil
}

// Close closes the file.
func (l *File) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
