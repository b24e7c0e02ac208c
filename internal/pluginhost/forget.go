package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hearth-agent/hearth/internal/names"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

// TrashDir is the folder, inside the data directory, that Forget and
// Remove move what they take away into, one dated folder per call.
const TrashDir = "trash"

// Forgotten says what Forget or Remove took away.
type Forgotten struct {
	Name   string
	Owner  string                 // the folder the name was bound to; "" if none
	Store  *store.ForgottenPlugin // what the database kept under the name
	Data   []string               // the data folders (plugin_data/<name>) moved to Trash
	Folder string                 // the plugin folder moved to Trash (Remove)
	Trash  string                 // where all of it is kept now; "" if nothing was
}

// checkForgettable refuses the names that are not a folder's to free:
// Hearth's own and the built-in plugins'.
func checkForgettable(name string) error {
	if name == "" {
		return errors.New("no plugin name given")
	}
	if names.IsReserved(name) {
		return fmt.Errorf("%w: %q stands for Hearth itself; it is no plugin's to forget", names.ErrReserved, name)
	}
	for _, b := range sdk.Factories() {
		if strings.EqualFold(b, name) {
			return fmt.Errorf("%q is the name of the built-in plugin %q; it stays the built-in's", name, b)
		}
	}
	return nil
}

// Forgetter removes what the database keeps under a plugin name;
// *store.Store has it.
type Forgetter interface {
	NameOwners
	// ForgetPlugin removes, all or none, everything kept under name and
	// returns what it removed.
	ForgetPlugin(ctx context.Context, name string) (*store.ForgottenPlugin, error)
}

var _ Forgetter = (*store.Store)(nil)

// Forget frees a plugin name, so that the next folder asking for it starts
// clean: it removes the name's binding to its folder, its settings
// (secrets too) and their declarations, its key-value storage, the user's
// policy modes for its tools, and its tools in the catalogue, and moves
// its data folder (<dataDir>/plugin_data/<name>, any case) into a dated
// folder under <dataDir>/trash, with what the database held in store.json
// there. The plugin's own folder is left alone (see Remove). No plugin of
// the data directory may be running: the caller holds its lock.
func Forget(ctx context.Context, st Forgetter, dataDir, pluginsDir, name string) (*Forgotten, error) {
	if err := checkForgettable(name); err != nil {
		return nil, err
	}
	return forget(ctx, st, dataDir, pluginsDir, name, "")
}

// Remove moves the folder of the plugin named name (the folder the name is
// bound to, or else the one folder asking for it) into the trash, then
// forgets the name as Forget does. The caller holds the data directory's
// lock.
func Remove(ctx context.Context, st Forgetter, dataDir, pluginsDir, name string) (*Forgotten, error) {
	if err := checkForgettable(name); err != nil {
		return nil, err
	}
	dir, err := removedFolder(ctx, st, pluginsDir, name)
	if err != nil {
		return nil, err
	}
	return forget(ctx, st, dataDir, pluginsDir, name, dir)
}

// removedFolder is the folder Remove takes for the name: the one it is
// bound to ("" when that is gone), or else the one folder asking for it.
func removedFolder(ctx context.Context, st Forgetter, pluginsDir, name string) (string, error) {
	owners, err := st.PluginOwners(ctx)
	if err != nil {
		return "", err
	}
	var dir string
	if folder, bound := owners[names.Key(name)]; bound {
		dir = filepath.Join(pluginsDir, folder)
		if man, err := LoadManifest(dir); err == nil && !strings.EqualFold(man.PluginName(), name) {
			return "", fmt.Errorf("the plugin in %s has the name %q now; remove it by that name, or free %q without touching the folder with `hearth plugin forget %s`",
				dir, man.PluginName(), name, name)
		}
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			dir = "" // gone already; forget the rest
		}
	} else {
		var asking []string
		entries, err := os.ReadDir(pluginsDir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		for _, e := range entries {
			d := filepath.Join(pluginsDir, e.Name())
			if man, err := LoadManifest(d); err == nil && strings.EqualFold(man.PluginName(), name) {
				asking = append(asking, d)
			} else if _, err := os.Stat(filepath.Join(d, e.Name()+".so")); err == nil && strings.EqualFold(e.Name(), name) {
				asking = append(asking, d)
			}
		}
		switch {
		case len(asking) == 0:
			return "", fmt.Errorf("no plugin folder in %s has the name %q (`hearth plugin forget %s` frees what is kept under it)", pluginsDir, name, name)
		case len(asking) == 1:
			dir = asking[0]
		case slices.Contains(asking, filepath.Join(pluginsDir, name)):
			dir = filepath.Join(pluginsDir, name) // where install puts it
		default:
			return "", fmt.Errorf("several plugin folders ask for the name %q: %s; remove the one you mean by hand", name, strings.Join(asking, ", "))
		}
	}
	return dir, nil
}

// forget moves folder (if not "") and the name's data folders into a new
// trash folder, then removes the name from the database and writes what it
// held next to them.
func forget(ctx context.Context, st Forgetter, dataDir, pluginsDir, name, folder string) (*Forgotten, error) {
	out := &Forgotten{Name: name}
	var data []string
	entries, err := os.ReadDir(filepath.Join(dataDir, "plugin_data"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		if strings.EqualFold(e.Name(), name) {
			data = append(data, filepath.Join(dataDir, "plugin_data", e.Name()))
		}
	}
	trash := ""
	if folder != "" || len(data) > 0 {
		if trash, err = newTrash(dataDir, name); err != nil {
			return nil, err
		}
		out.Trash = trash
	}
	// The files go first: if the database cannot be changed, the name is
	// still bound, and a later forget finishes the job.
	if folder != "" {
		to := filepath.Join(trash, "folder", filepath.Base(folder))
		if err := move(folder, to); err != nil {
			return out, err
		}
		out.Folder = folder
	}
	for _, d := range data {
		to := filepath.Join(trash, "plugin_data", filepath.Base(d))
		if err := move(d, to); err != nil {
			return out, err
		}
		out.Data = append(out.Data, d)
	}
	if out.Store, err = st.ForgetPlugin(ctx, name); err != nil {
		return out, err
	}
	if out.Store.Folder != "" {
		out.Owner = filepath.Join(pluginsDir, out.Store.Folder)
	}
	if len(out.Store.Settings)+len(out.Store.Defs)+len(out.Store.KV)+len(out.Store.Overrides)+len(out.Store.Grants) > 0 {
		if trash == "" {
			if trash, err = newTrash(dataDir, name); err != nil {
				return out, err
			}
			out.Trash = trash
		}
		b, err := json.MarshalIndent(out.Store, "", "  ")
		if err != nil {
			return out, err
		}
		if err := os.WriteFile(filepath.Join(trash, "store.json"), b, 0o600); err != nil {
			return out, err
		}
	}
	return out, nil
}

// newTrash makes <dataDir>/trash/<UTC time>-<name>, private.
func newTrash(dataDir, name string) (string, error) {
	base := filepath.Join(dataDir, TrashDir, time.Now().UTC().Format("20060102-150405")+"-"+name)
	dir := base
	for i := 2; ; i++ {
		if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
			return "", err
		}
		err := os.Mkdir(dir, 0o700)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
		dir = fmt.Sprintf("%s-%d", base, i)
	}
}

func move(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		return err
	}
	if err := os.Rename(from, to); err != nil {
		return fmt.Errorf("moving %s to the trash: %w", from, err)
	}
	return nil
}
