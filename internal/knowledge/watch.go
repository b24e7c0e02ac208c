package knowledge

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// maxBatch is the most events handled together: a burst (an editor's
// save, a folder copied in) is coalesced, each file looked at once.
const maxBatch = 4096

// run reconciles the index with the folder, then follows it: by watching
// every folder (fsnotify has no recursive watch on Linux: a watch is
// added for each folder, and for each new one as it appears), or, where
// watching fails, by rescanning every o.Rescan. It ends at Close.
func (k *Base) run(o Options) {
	defer close(k.done)
	var w *fsnotify.Watcher
	if !o.noWatch {
		var err error
		if w, err = fsnotify.NewWatcher(); err != nil {
			k.log.Warn("cannot watch the knowledge folder; rescanning it instead", "every", o.Rescan, "err", err)
			w = nil
		}
	}
	dirs := map[string]bool{} // watched folders, absolute
	watch := func(abs string) error {
		if w == nil {
			return nil
		}
		if err := w.Add(abs); err != nil {
			return err
		}
		dirs[abs] = true
		return nil
	}
	start := time.Now()
	seen, err := k.scan("", false, watch)
	k.sweep("", seen)
	if err != nil {
		k.log.Warn("cannot watch the knowledge folder; rescanning it instead", "every", o.Rescan, "err", err)
		w.Close()
		w = nil
	}
	k.watching.Store(w != nil)
	k.log.Debug("knowledge folder reconciled", "entries", len(seen), "took", time.Since(start), "watching", w != nil)
	close(k.ready)
	k.changed()
	if w == nil {
		k.poll(o.Rescan)
		return
	}
	defer func() { w.Close() }()
	pending := map[string]fsnotify.Op{}
	for {
		select {
		case <-k.stop:
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			pending[ev.Name] |= ev.Op
		drain:
			for len(pending) < maxBatch {
				select {
				case ev, ok := <-w.Events:
					if !ok {
						break drain
					}
					pending[ev.Name] |= ev.Op
				default:
					break drain
				}
			}
			changed := false
			var failed error
			// What is gone first: a folder renamed is gone under its old
			// name and new under the new one, and stopping the old watch
			// after the new one is made would stop the new (inotify
			// watches the folder, not the name).
			for _, gone := range []bool{true, false} {
				for p, op := range pending {
					if _, err := os.Lstat(p); (err != nil) == gone {
						changed = k.apply(p, op, dirs, w, watch, &failed) || changed
						delete(pending, p)
					}
				}
			}
			if changed {
				k.changed()
			}
			if failed != nil {
				k.log.Warn("cannot watch a new knowledge subfolder; rescanning the folder instead", "every", o.Rescan, "err", failed)
				k.watching.Store(false)
				w.Close()
				k.poll(o.Rescan)
				return
			}
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Events were lost: look at everything again.
				seen, _ := k.scan("", false, watch)
				k.sweep("", seen)
				k.changed()
				continue
			}
			k.log.Warn("watching the knowledge folder", "err", err)
		}
	}
}

// poll rescans the folder every interval until Close.
func (k *Base) poll(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-k.stop:
			return
		case <-t.C:
			seen, _ := k.scan("", false, nil)
			k.sweep("", seen)
			k.changed()
		}
	}
}

// apply handles what happened to the path p: a new folder is watched
// and scanned; a folder gone stops being watched and its files are
// dropped; a file is looked at.
// A folder that cannot be watched sets *failed.
func (k *Base) apply(p string, op fsnotify.Op, dirs map[string]bool, w *fsnotify.Watcher, watch func(string) error, failed *error) bool {
	rel, err := filepath.Rel(k.dir, p)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return false
	}
	rel = filepath.ToSlash(rel)
	info, err := os.Lstat(p)
	switch {
	case err == nil && info.IsDir():
		if dirs[p] && !op.Has(fsnotify.Create) || skipDir(rel) {
			return false
		}
		seen, werr := k.scan(rel, true, watch)
		k.sweep(rel, seen)
		if werr != nil && *failed == nil {
			*failed = werr
		}
		return true
	case err != nil && dirs[p]:
		prefix := p + string(filepath.Separator)
		for d := range dirs {
			if d == p || strings.HasPrefix(d, prefix) {
				delete(dirs, d)
				w.Remove(d) // gone already, mostly
			}
		}
		return k.dropUnder(rel)
	}
	return k.refresh(rel, true)
}
