package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hearth-agent/hearth/internal/hagosrc"
	"github.com/hearth-agent/hearth/internal/names"
	"github.com/hearth-agent/hearth/sdk"
)

// Install copies a plugin folder into the plugins folder and scans.
func (m *Manager) Install(ctx context.Context, src string) (string, error) {
	id, err := InstallFolder(ctx, m.st, m.dir, src)
	if err != nil {
		return "", err
	}
	return id, m.Scan(ctx)
}

// InstallFolder copies a plugin folder into pluginsDir/<id>. It refuses a
// folder without a valid plugin.json (or HomeAgent's plg.json and
// plugin.so, installed as pluginsDir/<name>), or whose id or plugin name is
// taken by an installed folder or a plugin compiled into this Hearth, or
// belongs to another folder (owners; nil skips that check). A running
// Hearth picks it up at its next scan.
func InstallFolder(ctx context.Context, owners NameOwners, pluginsDir, src string) (string, error) {
	id, name, err := folderID(src)
	if err != nil {
		return "", err
	}
	dst := filepath.Join(pluginsDir, id)
	if _, err := os.Stat(dst); err == nil {
		return "", fmt.Errorf("a plugin %q is already installed in %s", id, dst)
	}
	if owners != nil {
		bound, err := owners.PluginOwners(ctx)
		if err != nil {
			return "", err
		}
		if folder, ok := bound[names.Key(name)]; ok && folder != id {
			return "", errors.New(belongs(name, filepath.Join(pluginsDir, folder)))
		}
	}
	for _, b := range sdk.Factories() {
		if strings.EqualFold(b, name) {
			return "", fmt.Errorf("the plugin name %q is already used by the built-in plugin %q", name, b)
		}
	}
	entries, _ := os.ReadDir(pluginsDir)
	for _, e := range entries {
		dir := filepath.Join(pluginsDir, e.Name())
		if other, err := LoadManifest(dir); err == nil && other.PluginName() == name {
			return "", fmt.Errorf("the plugin name %q is already used by %s", name, owner(dir, other))
		}
		if strings.EqualFold(e.Name(), name) {
			if so, _ := soFile(dir, e.Name()); so != "" {
				return "", fmt.Errorf("the plugin name %q is already used by the .so plugin in %s", name, dir)
			}
		}
	}
	if err := copyTree(src, dst); err != nil {
		os.RemoveAll(dst)
		return "", fmt.Errorf("copying %s: %w", src, err)
	}
	// A folder is upgraded by installing it again: a record of where a
	// plugin of this id was fetched from no longer holds.
	if err := RemoveSourceRecord(pluginsDir, id); err != nil {
		return "", fmt.Errorf("forgetting where an earlier %s came from: %w", id, err)
	}
	return id, nil
}

// folderID returns the id (its folder's name once installed) and plugin
// name of a plugin folder: plugin.json's, or for HomeAgent's layout of
// plg.json and a .so, plg.json's name for both.
func folderID(src string) (id, name string, err error) {
	man, err := LoadManifest(src)
	if err == nil {
		return man.ID, man.PluginName(), nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		if plg, perr := hagosrc.ReadPlg(src); perr == nil {
			if so, _ := soFile(src, plg.Name); so != "" {
				if err := names.CheckReserved(plg.Name); err != nil {
					return "", "", err
				}
				if strings.HasPrefix(plg.Name, MCPPrefix) {
					return "", "", fmt.Errorf("plugin name %q: names starting with %q belong to the MCP servers of config.json", plg.Name, MCPPrefix)
				}
				return plg.Name, plg.Name, nil
			}
		}
	}
	return "", "", fmt.Errorf("not a plugin folder: %w", err)
}

// copyTree copies the folder src to dst, without links, devices or a
// source record the folder ships (LegacySourceFile: where upgrades come
// from is Hearth's record, never the plugin's).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if rel == LegacySourceFile {
			return nil
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case info.Mode().IsRegular():
			in, err := os.Open(path)
			if err != nil {
				return err
			}
			defer in.Close()
			out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, info.Mode().Perm())
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, in); err != nil {
				out.Close()
				return err
			}
			return out.Close()
		default:
			return nil // links and devices are not copied
		}
	})
}

// InstallBuilt installs a plugin folder that hagosrc.Build made from a
// HomeAgent source folder. The first time it is InstallFolder; after
// that, the folder installed from the same source is replaced (the
// rebuilt program, plugin.json and record swapped in, the old folder
// moved out first and removed after), and a running Hearth restarts the
// plugin at its next scan. A folder of that id installed from elsewhere
// is refused as InstallFolder refuses it. replaced says which it did.
func InstallBuilt(ctx context.Context, owners NameOwners, pluginsDir, built string) (id string, replaced bool, err error) {
	man, err := LoadManifest(built)
	if err != nil {
		return "", false, fmt.Errorf("not a plugin folder: %w", err)
	}
	dst := filepath.Join(pluginsDir, man.ID)
	if _, err := os.Stat(dst); errors.Is(err, fs.ErrNotExist) {
		id, err := InstallFolder(ctx, owners, pluginsDir, built)
		return id, false, err
	}
	rec, err := hagosrc.ReadRecord(built)
	if err != nil {
		return "", false, err
	}
	if old, err := hagosrc.ReadRecord(dst); err != nil || old.Source != rec.Source {
		return "", false, fmt.Errorf("a plugin %q is already installed in %s, not built from %s", man.ID, dst, rec.Source)
	}
	// Beside the built folder, so the renames stay on one file system
	// when they can.
	stage, old := filepath.Join(filepath.Dir(built), "stage"), filepath.Join(filepath.Dir(built), "old")
	if err := os.Rename(built, stage); err != nil {
		return "", false, err
	}
	if err := os.Rename(dst, old); err != nil {
		return "", false, fmt.Errorf("moving the old build out of %s: %w", dst, err)
	}
	if err := os.Rename(stage, dst); err != nil {
		// Another file system: copy instead.
		if err := copyTree(stage, dst); err != nil {
			os.RemoveAll(dst)
			if rerr := os.Rename(old, dst); rerr != nil {
				return "", false, fmt.Errorf("copying the new build to %s: %w (and putting the old one back: %w)", dst, err, rerr)
			}
			return "", false, fmt.Errorf("copying the new build to %s: %w", dst, err)
		}
	}
	return man.ID, true, os.RemoveAll(old)
}

// InstallBuilt installs a built HomeAgent plugin folder (see the function
// InstallBuilt) and scans.
func (m *Manager) InstallBuilt(ctx context.Context, built string) (string, bool, error) {
	id, replaced, err := InstallBuilt(ctx, m.st, m.dir, built)
	if err != nil {
		return "", false, err
	}
	return id, replaced, m.Scan(ctx)
}
