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
	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// A PKU manifest's legacy.pluginIds name the ids a plugin replaces, so
// that the user's settings follow it (docs/pku-wire.md, "Legacy ids").
// Naming an id costs a plugin nothing, so Hearth carries an old id's
// settings only when nothing says the id belongs to another plugin, only
// into keys the new plugin declares, never secrets, and keeps a record
// the owner reads with `hearth plugin show`.

// LegacyDir is the folder, inside the data dir, of the records of
// settings carried over from legacy ids: one <plugin id>.json each.
const LegacyDir = "legacy"

// LegacyCarry is one start's carrying of an old id's settings.
type LegacyCarry struct {
	From  string       `json:"from"`            // the old id
	Keys  []string     `json:"keys"`            // the keys carried (names only, never values)
	Tools []LegacyTool `json:"tools,omitempty"` // old tools whose policy mode was carried (pku_legacy_tools.go)
	At    time.Time    `json:"at"`
}

// maxLegacyRecord is how many carryings a plugin's record keeps.
const maxLegacyRecord = 50

// adoptLegacy carries the settings of the old plugin ids this plugin
// replaces over to it: each key the plugin declares (a preference of
// this manifest or a setting it registered) that it has no value for
// takes the old one. An old id is left alone when anything says it is
// another plugin's: a loader holds the name, the name is bound in the
// database to a folder other than this plugin's (an installed plugin,
// disabled, moved or whose folder has another name), or a folder in the
// plugins folder is named so or has it as its id. Secrets never move.
func (p *Process) adoptLegacy(svc *settings.Service, old []string, prefs map[string]wire.PreferenceDef) {
	if len(old) == 0 {
		return
	}
	declared := map[string]bool{}
	for k := range prefs {
		declared[k] = true
	}
	for _, d := range svc.Defs(p.name, "") {
		declared[d.Key] = true
	}
	for _, id := range old {
		if id == p.name || settings.CheckPlugin(id) != nil {
			continue
		}
		if why := p.legacyTaken(id); why != "" {
			p.log.Warn("legacy id not adopted: it belongs to another plugin", "old", id, "why", why)
			continue
		}
		keys, err := svc.Keys(id, "")
		if err != nil {
			p.log.Warn("legacy settings not read", "old", id, "err", err)
			continue
		}
		var carried []string
		for _, key := range keys {
			if !declared[key] || svc.Secret(id, key) || svc.Secret(p.name, key) {
				continue
			}
			if _, ok, _ := svc.Value(p.name, key); ok {
				continue
			}
			raw, ok, err := svc.Value(id, key)
			if err != nil || !ok {
				continue
			}
			if err := svc.SetJSON(p.name, key, raw); err != nil {
				p.log.Warn("legacy setting not carried over", "old", id, "key", key, "err", err)
				continue
			}
			carried = append(carried, key)
		}
		if len(carried) == 0 {
			continue
		}
		p.log.Info("legacy settings carried over", "old", id, "keys", strings.Join(carried, ","))
		if err := p.recordLegacy(LegacyCarry{From: id, Keys: carried, At: time.Now().UTC()}); err != nil {
			p.log.Warn("legacy carry not recorded", "old", id, "err", err)
		}
	}
}

// legacyTaken says why id is another plugin's, or "" when nothing says
// so. Without a way to read the database's name bindings it is always
// someone's.
func (p *Process) legacyTaken(id string) string {
	if owner, held := p.opts.Names.Owner(id); held {
		return fmt.Sprintf("held by %v", owner)
	}
	if p.opts.NameOwners == nil {
		return "the host cannot tell which plugin owns the name (no name bindings)"
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.opts.StageTimeout)
	defer cancel()
	owners, err := p.opts.NameOwners.PluginOwners(ctx)
	if err != nil {
		return fmt.Sprintf("name bindings not read: %v", err)
	}
	if folder, bound := owners[names.Key(id)]; bound && folder != filepath.Base(p.dir) {
		return "bound to the plugin folder " + folder
	}
	parent := filepath.Dir(p.dir)
	entries, err := os.ReadDir(parent)
	if err != nil {
		return fmt.Sprintf("plugins folder not read: %v", err)
	}
	for _, e := range entries {
		dir := filepath.Join(parent, e.Name())
		if !e.IsDir() || dir == p.dir {
			continue
		}
		if names.Key(e.Name()) == names.Key(id) {
			return "the folder " + dir
		}
		if m, err := LoadManifest(dir); err == nil && names.Key(m.PluginName()) == names.Key(id) {
			return "the id of the plugin in " + dir
		}
	}
	return ""
}

// recordLegacy appends c to the plugin's record in DataDir/LegacyDir.
func (p *Process) recordLegacy(c LegacyCarry) error {
	if p.opts.DataDir == "" {
		return nil
	}
	list, err := LegacyCarried(p.opts.DataDir, p.name)
	if err != nil {
		return err
	}
	list = append(list, c)
	if len(list) > maxLegacyRecord {
		list = list[len(list)-maxLegacyRecord:]
	}
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Join(p.opts.DataDir, LegacyDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, p.name+".json"), append(b, '\n'), 0o600)
}

// LegacyCarried returns what was carried over to plugin from its legacy
// ids, oldest first (for `hearth plugin show`); none when nothing was.
func LegacyCarried(dataDir, plugin string) ([]LegacyCarry, error) {
	if settings.CheckPlugin(plugin) != nil {
		return nil, fmt.Errorf("plugin id %q", plugin)
	}
	b, err := os.ReadFile(filepath.Join(dataDir, LegacyDir, plugin+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var list []LegacyCarry
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dataDir, LegacyDir, plugin+".json"), err)
	}
	return slices.DeleteFunc(list, func(c LegacyCarry) bool { return c.From == "" }), nil
}

// LegacyLines are the lines `hearth plugin show` prints for what was
// carried over to plugin: "settings of OLD carried over: a, b (DATE)".
func LegacyLines(dataDir, plugin string) []string {
	if settings.CheckPlugin(plugin) != nil {
		return nil // no plugin of this host's: nothing is ever carried to it
	}
	list, err := LegacyCarried(dataDir, plugin)
	if err != nil {
		return []string{"record not read: " + err.Error()}
	}
	var out []string
	for _, c := range list {
		if len(c.Keys) > 0 {
			out = append(out, fmt.Sprintf("settings of %s carried over: %s (%s)", c.From, strings.Join(c.Keys, ", "), c.At.Format(time.DateTime)))
		}
		for _, t := range c.Tools {
			out = append(out, legacyToolLine(t, c.At))
		}
	}
	return out
}
