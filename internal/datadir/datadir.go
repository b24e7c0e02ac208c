// Package datadir guards Hearth's data directory: it keeps the directory
// and the files at its top (the database and its WAL and SHM files, the
// config, the log) private to the user, it holds the lock that makes
// one process the owner of the directory's plugins (and locks any other
// file one process must write alone, Exclusive), and it names the
// folders inside it that are named after a value (FileName).
package datadir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Loosened is a file or directory whose group or world permissions Secure
// removed.
type Loosened struct {
	Path     string
	Was, Now fs.FileMode
}

// String describes the change for a message.
func (l Loosened) String() string {
	return fmt.Sprintf("%s (was %04o, now %04o)", l.Path, l.Was, l.Now)
}

// Secure creates dir private to the user (0700) if it does not exist, and
// takes the group and world permissions away from it and from every
// regular file directly in it (hearth.db, hearth.db-wal, hearth.db-shm,
// config.json, hearth.log...). It returns what it had to tighten, so the
// caller can warn once: the next run finds nothing loose. Symbolic links
// inside dir are left alone; dir itself may be one.
func Secure(dir string) ([]Loosened, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the data directory: %w", err)
	}
	var fixed []Loosened
	tighten := func(path string, fi fs.FileMode) error {
		perm := fi.Perm()
		if perm&0o077 == 0 {
			return nil
		}
		if err := os.Chmod(path, perm&^0o077); err != nil {
			return fmt.Errorf("making %s private: %w", path, err)
		}
		fixed = append(fixed, Loosened{Path: path, Was: perm, Now: perm &^ 0o077})
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("checking the data directory: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("the data directory %s is not a directory", dir)
	}
	if err := tighten(dir, fi.Mode()); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the data directory: %w", err)
	}
	var errs []error
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, tighten(filepath.Join(dir, e.Name()), info.Mode()))
	}
	return fixed, errors.Join(errs...)
}
