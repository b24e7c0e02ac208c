// Package knowledge is the knowledge base: plain Markdown files in one
// folder of the data directory (<data>/knowledge/<name>.md), which users
// may also write and edit by hand, searched with the shared BM25 index
// (internal/search), which handles Chinese. Files changed on disk are
// picked up at the next search.
package knowledge

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/search"
	"github.com/hearth-agent/hearth/sdk"
)

// Ext is the extension of knowledge files.
const Ext = ".md"

// ErrName is returned for a name that cannot be a file name.
var ErrName = errors.New("invalid knowledge name")

// ErrNotFound is returned for an entry that does not exist, or whose
// file is not a regular file inside the folder (a symbolic link leading
// out of it).
var ErrNotFound = errors.New("no such knowledge entry")

// Base is the knowledge base in one folder. It implements
// sdk.KnowledgeAPI.
type Base struct {
	dir string

	mu    sync.Mutex
	index *search.Index
	seen  map[string]stamp // name -> what was indexed
}

type stamp struct {
	mod  time.Time
	size int64
}

var _ sdk.KnowledgeAPI = (*Base)(nil)

// Open returns the knowledge base kept in dir, creating it.
func Open(dir string) (*Base, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the knowledge folder: %w", err)
	}
	return &Base{dir: dir, index: search.NewIndex(), seen: map[string]stamp{}}, nil
}

// Dir returns the folder.
func (k *Base) Dir() string { return k.dir }

// CheckName refuses, wrapping ErrName, a name that is not one plain file
// name: empty, with a slash or backslash, hidden, "." or "..".
func CheckName(name string) error { return checkName(name) }

// checkName refuses names that are not one plain file name.
func checkName(name string) error {
	if strings.TrimSpace(name) == "" || strings.ContainsAny(name, `/\`+"\x00") || name == "." || name == ".." ||
		strings.HasPrefix(name, ".") {
		return fmt.Errorf("%w: %q (a knowledge entry is one file: no slashes, not hidden)", ErrName, name)
	}
	return nil
}

// Add writes (or replaces) the entry name.
func (k *Base) Add(name, content string) error {
	if err := checkName(name); err != nil {
		return err
	}
	path := filepath.Join(k.dir, name+Ext)
	tmp, err := os.CreateTemp(k.dir, ".add-*")
	if err != nil {
		return err
	}
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// List returns the entries' names, sorted.
func (k *Base) List() ([]string, error) {
	files, err := k.files()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	return names, nil
}

func (k *Base) files() (map[string]stamp, error) {
	entries, err := os.ReadDir(k.dir)
	if err != nil {
		return nil, err
	}
	out := map[string]stamp{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, Ext) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		out[strings.TrimSuffix(name, Ext)] = stamp{info.ModTime(), info.Size()}
	}
	return out, nil
}

// refresh brings the index up to date with the folder; k.mu is held.
func (k *Base) refresh() error {
	files, err := k.files()
	if err != nil {
		return err
	}
	for name := range k.seen {
		if _, ok := files[name]; !ok {
			k.index.Remove(name)
			delete(k.seen, name)
		}
	}
	for name, st := range files {
		if k.seen[name] == st {
			continue
		}
		b, err := os.ReadFile(filepath.Join(k.dir, name+Ext))
		if err != nil {
			continue
		}
		k.index.Add(name, name+"\n"+string(b)) // the name is searched too
		k.seen[name] = st
	}
	return nil
}

// Search returns the topK entries best matching query.
func (k *Base) Search(query string, topK int) ([]*sdk.Knowledge, error) {
	if topK <= 0 {
		topK = 5
	}
	k.mu.Lock()
	err := k.refresh()
	hits := k.index.Search(query, topK)
	k.mu.Unlock()
	if err != nil {
		return nil, err
	}
	out := make([]*sdk.Knowledge, 0, len(hits))
	for _, h := range hits {
		b, err := os.ReadFile(filepath.Join(k.dir, h.ID+Ext))
		if err != nil {
			continue // removed since
		}
		out = append(out, &sdk.Knowledge{Name: h.ID, Content: string(b)})
	}
	return out, nil
}

// Read returns the entry name's text. The file is opened inside the
// folder only (os.Root): a symbolic link leading out of it is ErrNotFound.
func (k *Base) Read(name string) (string, error) {
	if err := checkName(name); err != nil {
		return "", err
	}
	root, err := os.OpenRoot(k.dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	f, err := root.Open(name + Ext)
	if err != nil {
		return "", fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return "", fmt.Errorf("reading knowledge entry %q: %w", name, err)
	}
	return string(b), nil
}

// Remove deletes the entry name (a symbolic link itself, never what it
// points to), or returns ErrNotFound.
func (k *Base) Remove(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	err := os.Remove(filepath.Join(k.dir, name+Ext))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	return err
}
