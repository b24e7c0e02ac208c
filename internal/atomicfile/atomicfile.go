// Package atomicfile replaces files whole: a reader, or the next start
// after a crash, finds the old content or the new, never a mix or a cut.
// The config file, the search index's snapshot and the text memory's
// merged day files are written through it.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// WriteFile replaces path with data (mode 0600): written to a temporary
// file in the same folder ("."+name+".*.tmp", removed on failure),
// synced, renamed over path, and the folder synced so that the rename
// lasts (except on Windows, which cannot sync a folder; its rename is
// durable by itself once the file is). A crash midway leaves path as it
// was and, at worst, the temporary file (see Stale).
func WriteFile(path string, data []byte) (err error) {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	renamed := false
	defer func() {
		if err != nil && !renamed {
			f.Close()
			os.Remove(f.Name())
		}
		if err != nil {
			err = fmt.Errorf("writing %s: %w", path, err)
		}
	}()
	if err = f.Chmod(0o600); err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	renamed = true
	return SyncDir(dir) // on failure: written, not yet lasting
}

// SyncDir syncs the folder dir, so that the files created, renamed or
// removed in it stay so after a crash. It does nothing on Windows.
func SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}

// Stale returns the temporary files WriteFile left beside path in a
// crash: an owner that alone writes path removes them before writing it
// again.
func Stale(path string) []string {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), "."+name+".")
		if ok && strings.HasSuffix(rest, ".tmp") && e.Type().IsRegular() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}
