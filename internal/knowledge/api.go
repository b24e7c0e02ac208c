package knowledge

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/search"
	"github.com/hearth-agent/hearth/sdk"
)

const osCreateNew = os.O_WRONLY | os.O_CREATE | os.O_EXCL

// Entry is one entry as the owner browses it.
type Entry struct {
	Key
	// File is the entry's file, relative to the folder, slash-separated.
	File string `json:"file"`
	// Title is the entry's first heading, else its first line.
	Title    string    `json:"title"`
	Size     int64     `json:"size"`
	Modified time.Time `json:"modified"`
}

// Hit is one entry found, best first.
type Hit struct {
	Entry
	Score float64 `json:"score"`
}

// allowed returns the index filter of what v sees among the entries
// (and match accepts, unless nil).
func (k *Base) allowed(v scope.View, match func(scope.Scope, string) bool) func(search.Meta) bool {
	return k.tags.Allowed(func(o search.Owner) bool {
		sc := scope.Scope(o.Scope)
		return visible(v, o.Writer, sc) && (match == nil || match(sc, o.Writer))
	})
}

// Find returns the topK entries v sees best matching query, without
// reading their files (a title not yet known is read from the start of
// the file, once).
func (k *Base) Find(v scope.View, query string, topK int) []Hit {
	return k.FindMatching(v, query, topK, nil)
}

// FindMatching is Find among the entries whose scope and writer match
// accepts too (all for nil): the owner narrowing a search.
func (k *Base) FindMatching(v scope.View, query string, topK int, match func(sc scope.Scope, writer string) bool) []Hit {
	if topK <= 0 {
		topK = 5
	}
	allow := k.allowed(v, match)
	var hits []search.Hit
	if v.AllWriters {
		hits = k.index.Query(query, topK, allow)
	} else {
		// A plugin's scores and order come from what it sees only: they
		// must not tell it what others stored (see SearchWithin).
		hits = k.index.SearchWithin(query, topK, allow)
	}
	out := make([]Hit, 0, len(hits))
	for _, h := range hits {
		e, ok := k.entry(h.ID[len(idPrefix):])
		if !ok || !visible(v, e.Writer, e.Scope) || (match != nil && !match(e.Scope, e.Writer)) {
			continue // gone since, or an index out of step with the folder
		}
		out = append(out, Hit{Entry: e, Score: h.Score})
	}
	return out
}

// entry returns what is known of the file rel, with its title.
func (k *Base) entry(rel string) (Entry, bool) {
	k.mu.RLock()
	e := k.entries[rel]
	var out Entry
	if e != nil {
		out = Entry{Key: e.key, File: e.rel, Title: e.title, Size: e.size, Modified: e.mod}
	}
	k.mu.RUnlock()
	if e == nil {
		return Entry{}, false
	}
	if out.Title == "" {
		text, _ := k.readFile(rel, 2<<10) // the title is on the first lines
		out.Title = titleOf(text, out.Name)
		k.mu.Lock()
		if cur := k.entries[rel]; cur == e {
			e.title = out.Title
		}
		k.mu.Unlock()
	}
	return out, true
}

// Search returns the topK entries v sees best matching query, with
// their text.
func (k *Base) Search(v scope.View, query string, topK int) ([]*sdk.Knowledge, error) {
	hits := k.Find(v, query, topK)
	out := make([]*sdk.Knowledge, 0, len(hits))
	for _, h := range hits {
		text, err := k.readFile(h.File, maxRead)
		if err != nil {
			continue // removed since
		}
		out = append(out, &sdk.Knowledge{Name: h.Name, Content: text})
	}
	return out, nil
}

// Entries returns the entries v sees, by name, then scope and writer.
func (k *Base) Entries(v scope.View) []Entry {
	k.mu.RLock()
	out := make([]Entry, 0, len(k.entries))
	for _, e := range k.entries {
		if visible(v, e.key.Writer, e.key.Scope) {
			out = append(out, Entry{Key: e.key, File: e.rel, Title: e.title, Size: e.size, Modified: e.mod})
		}
	}
	k.mu.RUnlock()
	slices.SortFunc(out, func(a, b Entry) int {
		return cmpKeys(a.Key, b.Key, a.File, b.File)
	})
	return out
}

func cmpKeys(a, b Key, fa, fb string) int {
	switch {
	case a.Name != b.Name:
		return strings.Compare(a.Name, b.Name)
	case a.Scope != b.Scope:
		return strings.Compare(string(a.Scope), string(b.Scope))
	case a.Writer != b.Writer:
		return strings.Compare(a.Writer, b.Writer)
	}
	return strings.Compare(fa, fb)
}

// List returns the names of the entries v sees, sorted, each once.
func (k *Base) List(v scope.View) ([]string, error) {
	var names []string
	for _, e := range k.Entries(v) {
		if len(names) == 0 || names[len(names)-1] != e.Name {
			names = append(names, e.Name)
		}
	}
	return names, nil
}

// Add writes (or replaces) the entry name of v's writer in v's scope,
// and indexes it before returning.
func (k *Base) Add(v scope.View, name, content string) error {
	_, err := k.Put(v, Key{Scope: v.Write, Writer: v.Writer, Name: name}, content)
	return err
}

// Put writes (or replaces) the entry key, which v must own, and indexes
// it before returning. created is whether it is new.
func (k *Base) Put(v scope.View, key Key, content string) (created bool, err error) {
	if err := CheckName(key.Name); err != nil {
		return false, err
	}
	if !key.Scope.Valid() {
		return false, fmt.Errorf("%w: scope %q", ErrName, key.Scope)
	}
	if !v.Owns(key.Writer, key.Scope) {
		return false, fmt.Errorf("%w: %q in %s", ErrDenied, key.Name, key.Scope)
	}
	rel, created, err := k.fileOf(key)
	if err != nil {
		return false, err
	}
	if err := k.write(rel, content); err != nil {
		return false, fmt.Errorf("writing knowledge entry %q: %w", key.Name, err)
	}
	k.refresh(rel, true)
	k.changed()
	return created, nil
}

// fileOf returns the file of key: the existing one (.md or .txt), else
// a new .md.
func (k *Base) fileOf(key Key) (rel string, created bool, err error) {
	for _, ext := range exts {
		r, err := relOf(key, ext)
		if err != nil {
			return "", false, err
		}
		if info, err := k.root.Lstat(filepath.FromSlash(r)); err == nil && info.Mode().IsRegular() {
			return r, false, nil
		}
	}
	r, err := relOf(key, Ext)
	return r, true, err
}

// write replaces the file rel with content atomically (a temporary file
// renamed over it), inside the folder only.
func (k *Base) write(rel, content string) error {
	dir := path.Dir(rel)
	if dir != "." {
		if err := k.root.MkdirAll(filepath.FromSlash(dir), 0o700); err != nil {
			return err
		}
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := path.Join(dir, ".add-"+hex.EncodeToString(rnd[:]))
	f, err := k.root.OpenFile(filepath.FromSlash(tmp), osCreateNew, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = k.root.Rename(filepath.FromSlash(tmp), filepath.FromSlash(rel))
	}
	if err != nil {
		k.root.Remove(filepath.FromSlash(tmp))
	}
	return err
}

// Read returns the text of the entry key, which v must see.
func (k *Base) Read(v scope.View, key Key) (string, error) {
	return k.read(v, key, maxRead)
}

// Excerpt returns the first n runes of the entry key, which v must see,
// followed by "…" if there is more: what a search hit shows. It reads at
// most n·4+1 bytes of the file, whatever its size.
func (k *Base) Excerpt(v scope.View, key Key, n int) (string, error) {
	n = max(n, 0)
	limit := int64(n*utf8.UTFMax + 1)
	text, err := k.read(v, key, limit)
	if err != nil {
		return "", err
	}
	more := int64(len(text)) == limit
	i, runes := 0, 0
	for i < len(text) && runes < n {
		_, size := utf8.DecodeRuneInString(text[i:])
		if more && size == 1 && !utf8.FullRuneInString(text[i:]) {
			break // a rune cut by the limit
		}
		i += size
		runes++
	}
	if i < len(text) {
		more = true
	}
	text = strings.ToValidUTF8(text[:i], "\uFFFD")
	if more {
		text += "…"
	}
	return text, nil
}

// read returns up to limit bytes of the entry key, which v must see.
func (k *Base) read(v scope.View, key Key, limit int64) (string, error) {
	if err := CheckName(key.Name); err != nil {
		return "", err
	}
	if !visible(v, key.Writer, key.Scope) {
		return "", fmt.Errorf("%w: %q", ErrNotFound, key.Name)
	}
	for _, ext := range exts {
		rel, err := relOf(key, ext)
		if err != nil {
			return "", err
		}
		text, err := k.readFile(rel, limit)
		if err == nil {
			return text, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			if _, statErr := k.root.Lstat(filepath.FromSlash(rel)); statErr == nil {
				return "", fmt.Errorf("%w: %q", ErrNotFound, key.Name) // a link out of the folder
			}
		}
	}
	return "", fmt.Errorf("%w: %q", ErrNotFound, key.Name)
}

// Remove deletes the entry key (its .md and .txt files; a symbolic link
// itself, never what it points to), which v must own; ErrNotFound if
// there is none v sees.
func (k *Base) Remove(v scope.View, key Key) error {
	if err := CheckName(key.Name); err != nil {
		return err
	}
	if !visible(v, key.Writer, key.Scope) {
		return fmt.Errorf("%w: %q", ErrNotFound, key.Name)
	}
	if !v.Owns(key.Writer, key.Scope) {
		return fmt.Errorf("%w: %q in %s", ErrDenied, key.Name, key.Scope)
	}
	found := false
	for _, ext := range exts {
		rel, err := relOf(key, ext)
		if err != nil {
			return err
		}
		err = k.root.Remove(filepath.FromSlash(rel))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("removing knowledge entry %q: %w", key.Name, err)
		}
		found = true
		k.refresh(rel, true)
	}
	if !found {
		return fmt.Errorf("%w: %q", ErrNotFound, key.Name)
	}
	k.changed()
	return nil
}
