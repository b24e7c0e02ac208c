package knowledge

import (
	"hash/maphash"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/hearth-agent/hearth/internal/search"
)

// How the index follows the folder. Every change goes through refresh,
// which looks at the file as it is now, so the order in which the
// watcher, a rescan and the API's own writes reach a file does not
// matter: the last look wins, and every change to a file is followed by
// a look (its event).

// stripe is the lock of the file rel: one update of a file at a time.
func (k *Base) stripe(rel string) *sync.Mutex {
	return &k.stripes[maphash.String(k.seed, rel)%uint64(len(k.stripes))]
}

// refresh brings the index up to date with the file rel (relative,
// slash-separated) and reports whether it changed anything. A file the
// index has with the same modification time and size is not read again
// unless force: an event says it changed (file times are coarse: two
// writes of the same length within a clock tick look alike).
func (k *Base) refresh(rel string, force bool) bool {
	mu := k.stripe(rel)
	mu.Lock()
	defer mu.Unlock()
	key, ok := locate(rel)
	if !ok {
		return k.drop(rel)
	}
	info, err := k.root.Lstat(filepath.FromSlash(rel))
	if err != nil || !info.Mode().IsRegular() {
		return k.drop(rel)
	}
	return k.update(rel, key, info, force)
}

// update indexes the regular file rel of entry key unless the index has
// it as info says it is now; the caller holds rel's stripe.
func (k *Base) update(rel string, key Key, info fs.FileInfo, force bool) bool {
	id := idPrefix + rel
	st := stampOf(info.ModTime(), info.Size())
	tag := k.tag(key.Scope, key.Writer)
	e := &entry{key: key, rel: rel, tag: tag, size: info.Size(), mod: info.ModTime()}
	if m, ok := k.index.Meta(id); !force && ok && m.Stamp == st && m.Tag == tag {
		k.mu.Lock()
		old := k.entries[rel]
		if old != nil && old.size == e.size && old.mod.Equal(e.mod) {
			e.title = old.title
		}
		k.entries[rel] = e
		k.mu.Unlock()
		return old == nil
	}
	text, err := k.readFile(rel, maxRead)
	if err != nil {
		return k.drop(rel)
	}
	e.title = titleOf(text, key.Name)
	k.index.Put(id, indexText(key.Name, text), search.Meta{Tag: tag, Stamp: st})
	k.mu.Lock()
	k.entries[rel] = e
	k.mu.Unlock()
	return true
}

// drop forgets the file rel; the caller holds rel's stripe.
func (k *Base) drop(rel string) bool {
	id := idPrefix + rel
	_, indexed := k.index.Meta(id)
	if indexed {
		k.index.Remove(id)
	}
	k.mu.Lock()
	_, known := k.entries[rel]
	delete(k.entries, rel)
	k.mu.Unlock()
	return indexed || known
}

// dropUnder forgets every file under the folder rel (gone, or moved).
func (k *Base) dropUnder(rel string) bool {
	prefix := rel + "/"
	var gone []string
	k.mu.RLock()
	for r := range k.entries {
		if strings.HasPrefix(r, prefix) {
			gone = append(gone, r)
		}
	}
	k.mu.RUnlock()
	changed := false
	for _, r := range gone {
		changed = k.refresh(r, false) || changed
	}
	return changed
}

// scan walks the folder rel (relative, "" for all of it), calling watch
// for each folder before listing it, and brings the index up to date
// with every file in it, reading only files that changed (several at
// once; all of them if force). It returns the files seen, and the first error watch returned.
// A folder that cannot be read is skipped.
func (k *Base) scan(rel string, force bool, watch func(abs string) error) (seen map[string]bool, watchErr error) {
	seen = map[string]bool{}
	files := make(chan string, 256)
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for r := range files {
				k.refresh(r, force)
			}
		})
	}
	start := filepath.Join(k.dir, filepath.FromSlash(rel))
	filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if k.stopped() { // Close does not wait for a whole folder
			return fs.SkipAll
		}
		r, rerr := filepath.Rel(k.dir, p)
		if rerr != nil {
			return nil
		}
		r = filepath.ToSlash(r)
		if r == "." {
			r = ""
		}
		if err != nil {
			if d != nil && d.IsDir() && r != "" {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if skipDir(r) {
				return fs.SkipDir
			}
			if watch != nil {
				if err := watch(p); err != nil && watchErr == nil {
					watchErr = err
				}
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if _, ok := locate(r); ok {
			seen[r] = true
			files <- r
		}
		return nil
	})
	close(files)
	wg.Wait()
	return seen, watchErr
}

// stopped reports whether Close was called: a scan cut short is no
// ground to drop anything.
func (k *Base) stopped() bool {
	select {
	case <-k.stop:
		return true
	default:
		return false
	}
}

// sweep drops what the index or the base has of the folder rel that a
// scan did not see, after looking again (a file may have come since).
func (k *Base) sweep(rel string, seen map[string]bool) {
	if k.stopped() {
		return
	}
	prefix := idPrefix
	if rel != "" {
		prefix += rel + "/"
	}
	var check []string
	k.index.Each(prefix, func(id string, _ search.Meta) bool {
		if r := id[len(idPrefix):]; !seen[r] {
			check = append(check, r)
		}
		return true
	})
	k.mu.RLock()
	for r := range k.entries {
		if !seen[r] && strings.HasPrefix(idPrefix+r, prefix) {
			check = append(check, r)
		}
	}
	k.mu.RUnlock()
	for _, r := range check {
		k.refresh(r, false)
	}
}

// readFile returns up to limit bytes of the file rel, read inside the
// folder only (os.Root): a link leading out of it is an error.
func (k *Base) readFile(rel string, limit int64) (string, error) {
	f, err := k.root.Open(filepath.FromSlash(rel))
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", fs.ErrNotExist
	}
	b, err := io.ReadAll(io.LimitReader(f, limit))
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// titleRunes is the longest title kept.
const titleRunes = 80

// titleOf is an entry's title: its first Markdown heading, else its
// first non-empty line (see titleLine), else the last part of its name;
// at most titleRunes runes, on one line.
func titleOf(text, name string) string {
	if t, _, _, ok := titleLine(text); ok {
		return clip(t)
	}
	return clip(path.Base(name))
}

// titleLine finds an entry's title in text: its first Markdown heading
// ("# ..." to "###### ...") among its first 40 lines, else its first
// non-empty line but "---" (a line over 64 KiB ends the search). It
// returns the title, whole and trimmed, and the bounds of its line in
// text (end past its newline); ok is false if there is none.
func titleLine(text string) (title string, start, end int, ok bool) {
	for n, off := 0, 0; n < 40 && off < len(text); n++ {
		next := len(text)
		if i := strings.IndexByte(text[off:], '\n'); i >= 0 {
			next = off + i + 1
		}
		raw := strings.TrimSuffix(text[off:next], "\n")
		if len(raw) > 64<<10 {
			break
		}
		line := strings.TrimSpace(raw)
		if line != "" && line != "---" {
			if h := strings.TrimLeft(line, "#"); h != line && strings.HasPrefix(h, " ") && len(line)-len(h) <= 6 {
				return strings.TrimSpace(h), off, next, true
			}
			if !ok {
				title, start, end, ok = line, off, next, true
			}
		}
		off = next
	}
	return title, start, end, ok
}

// indexText is the text an entry is indexed by: search.IndexText of its
// title and of the rest, its name (searched too) and its text without
// the title's line, so that the title counts search.TitleWeight times,
// as a document memory's title does. A title taken from the name (its
// last part) leaves the rest of the name to the body.
func indexText(name, text string) string {
	title, start, end, ok := titleLine(text)
	if !ok {
		return search.IndexText(path.Base(name), strings.TrimPrefix(path.Dir(name), ".")+"\n"+text)
	}
	return search.IndexText(title, name+"\n"+text[:start]+text[end:])
}

func clip(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "�"))
	if utf8.RuneCountInString(s) <= titleRunes {
		return s
	}
	return string([]rune(s)[:titleRunes]) + "…"
}
