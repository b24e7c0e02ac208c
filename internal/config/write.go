package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/hearth-agent/hearth/internal/atomicfile"
)

// Writing config.json: the daemon changes the model sources for the user
// (hearth serve's provider pages). Every change reads the file, edits only
// what it changes, and replaces the file at once (a temporary file renamed
// over it, mode 0600, since it may hold keys): the user's other fields and
// other sources are kept as they were, and a crash leaves the old file or
// the new one, never half of one. A file that does not parse is not
// touched: the user is editing it, or it is broken, and either way writing
// over it would lose their work.

// ErrUnparsable means config.json could not be read as a config, so it was
// not changed.
var ErrUnparsable = errors.New("config.json does not parse; fix it (or move it away) before changing it here")

// editMu serialises this process's edits, so two changes made at once do
// not lose one another.
var editMu sync.Mutex

// PutSource adds source name to dir's config.json, or replaces it.
func PutSource(dir, name string, sc SourceConfig) error {
	if name == "" {
		return errors.New("a source needs a name")
	}
	b, err := json.Marshal(sc)
	if err != nil {
		return fmt.Errorf("encoding source %q: %w", name, err)
	}
	return edit(dir, func(top, sources map[string]json.RawMessage) error {
		sources[name] = b
		return nil
	})
}

// DeleteSource removes source name from dir's config.json; when the file's
// "source" named it, that is removed too (the first source by name is
// then used). Removing a source the file does not have is not an error.
func DeleteSource(dir, name string) error {
	return edit(dir, func(top, sources map[string]json.RawMessage) error {
		delete(sources, name)
		var cur string
		if json.Unmarshal(top["source"], &cur) == nil && cur == name {
			delete(top, "source")
		}
		return nil
	})
}

// SetCurrentSource makes name the source dir's config.json starts with.
// The file must have it.
func SetCurrentSource(dir, name string) error {
	return edit(dir, func(top, sources map[string]json.RawMessage) error {
		if _, ok := sources[name]; !ok {
			return fmt.Errorf("config.json has no source %q", name)
		}
		b, _ := json.Marshal(name)
		top["source"] = b
		return nil
	})
}

// edit reads dir's config.json (none is an empty one), lets fn change its
// top-level fields and its sources, checks that the result is still a
// valid config, and writes it.
func edit(dir string, fn func(top, sources map[string]json.RawMessage) error) error {
	return editSection(dir, "sources", fn)
}

// editSection is edit for any top-level object of named entries: key is
// "sources" or "mcpServers". Entries fn does not touch are written back
// byte for byte as they were.
func editSection(dir, key string, fn func(top, section map[string]json.RawMessage) error) error {
	editMu.Lock()
	defer editMu.Unlock()
	path := filepath.Join(dir, FileName)
	top := map[string]json.RawMessage{}
	section := map[string]json.RawMessage{}
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return fmt.Errorf("reading %s: %w", path, err)
	default:
		if _, err := Parse(path, old); err != nil {
			return fmt.Errorf("%w: %w", ErrUnparsable, err)
		}
		if err := json.Unmarshal(old, &top); err != nil || top == nil {
			return fmt.Errorf("%w: %s is not a JSON object", ErrUnparsable, path)
		}
		if raw, ok := top[key]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, &section); err != nil {
				return fmt.Errorf("%w: %s: %w", ErrUnparsable, key, err)
			}
		}
	}
	if err := fn(top, section); err != nil {
		return err
	}
	if len(section) > 0 {
		b, err := json.Marshal(section)
		if err != nil {
			return fmt.Errorf("encoding %s: %w", key, err)
		}
		top[key] = b
	} else {
		delete(top, key)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(top); err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	if _, err := Parse(path, buf.Bytes()); err != nil {
		return fmt.Errorf("the changed config would not load, so it was not written: %w", err)
	}
	return atomicfile.WriteFile(path, buf.Bytes())
}
