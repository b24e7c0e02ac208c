package logfile

import (
	"errors"
	"io/fs"
	"path/filepath"
	"sync"
)

// errInjected is the failure faultFS hands out.
var errInjected = errors.New("injected fault")

// faultFS is the operating system's file system with faults on cue: an
// operation (open, stat, remove, rename, or write to an open file) fails
// while fail, given the operation and the file's base name, says so.
type faultFS struct {
	mu   sync.Mutex
	fail func(op, name string) bool
}

var _ fileSystem = (*faultFS)(nil)

// cue returns the fault for op on name, or nil.
func (f *faultFS) cue(op, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil && f.fail(op, filepath.Base(name)) {
		return &fs.PathError{Op: op, Path: name, Err: errInjected}
	}
	return nil
}

// set puts fail in force; nil lifts every fault.
func (f *faultFS) set(fail func(op, name string) bool) {
	f.mu.Lock()
	f.fail = fail
	f.mu.Unlock()
}

func (f *faultFS) OpenFile(name string, flag int, perm fs.FileMode) (file, error) {
	if err := f.cue("open", name); err != nil {
		return nil, err
	}
	real, err := osFS{}.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &faultFile{file: real, fs: f, name: name}, nil
}

func (f *faultFS) Stat(name string) (fs.FileInfo, error) {
	if err := f.cue("stat", name); err != nil {
		return nil, err
	}
	return osFS{}.Stat(name)
}

func (f *faultFS) Remove(name string) error {
	if err := f.cue("remove", name); err != nil {
		return err
	}
	return osFS{}.Remove(name)
}

func (f *faultFS) Rename(oldpath, newpath string) error {
	if err := f.cue("rename", oldpath); err != nil {
		return err
	}
	return osFS{}.Rename(oldpath, newpath)
}

// faultFile is an open file of a faultFS: its writes fail on cue, and
// nothing of a failed write reaches the file.
type faultFile struct {
	file
	fs   *faultFS
	name string
}

func (f *faultFile) Write(p []byte) (int, error) {
	if err := f.fs.cue("write", f.name); err != nil {
		return 0, err
	}
	return f.file.Write(p)
}
