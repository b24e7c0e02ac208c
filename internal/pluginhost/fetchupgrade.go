package pluginhost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// An upgrade replaces a plugin folder with a newly fetched one. Before
// it does, RightsChanges says what the new plugin.json asks for that the
// old did not, for the owner to agree to; while it does, the old folder
// waits in the data directory's upgrading folder (UpgradingDir, on the
// plugins folder's file system), so that an upgrade cut short is undone
// by RestoreUpgrades at the next run instead of losing the plugin.

// UpgradingDir is the folder, beside the plugins folder in the data
// directory, where an old plugin folder waits while it is upgraded.
const UpgradingDir = "upgrading"

// RightsChanges lists, one line each as "field: old -> new", the
// differences between two manifests in what decides a plugin's rights:
// its capabilities, default modes, decision hook, environment, runtime
// and command, and the hooks it contributes. None means the upgrade
// asks for nothing new.
func RightsChanges(old, new *Manifest) []string {
	var out []string
	add := func(field, a, b string) {
		if a != b {
			out = append(out, fmt.Sprintf("%s: %s -> %s", field, a, b))
		}
	}
	list := func(s []string) string {
		s = slices.Sorted(slices.Values(s))
		if len(s) == 0 {
			return "(none)"
		}
		return strings.Join(s, ", ")
	}
	modes := func(m *Manifest) string {
		var s []string
		for _, e := range slices.Sorted(maps.Keys(m.DefaultModes)) {
			s = append(s, fmt.Sprintf("%s=%s", e, m.DefaultModes[e]))
		}
		return list(s)
	}
	env := func(m *Manifest) string { return list(slices.Collect(maps.Keys(m.Env))) }
	add("capabilities", list(old.Capabilities), list(new.Capabilities))
	add("defaultModes", modes(old), modes(new))
	add("decisionHook", fmt.Sprint(old.declaresHook()), fmt.Sprint(new.declaresHook()))
	add("env (names)", env(old), env(new))
	add("runtime", orNone(old.Runtime), orNone(new.Runtime))
	add("command", orNone(strings.Join(commandOf(old), " ")), orNone(strings.Join(commandOf(new), " ")))
	if !bytes.Equal(compact(old.Contributes), compact(new.Contributes)) {
		out = append(out, "contributes: changed")
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// commandOf is the program a manifest runs, in any of its spellings.
func commandOf(m *Manifest) []string {
	switch {
	case m.Executable != "":
		return []string{m.Executable}
	case len(m.Command) > 0:
		return m.Command
	}
	return strings.Fields(m.Entry)
}

func compact(b json.RawMessage) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}

// UpgradingFolder is where the old folder of pluginsDir/id waits while
// it is upgraded.
func UpgradingFolder(pluginsDir, id string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(pluginsDir)), UpgradingDir, id)
}

// SetAside moves pluginsDir/id to UpgradingFolder, from where
// RestoreUpgrades brings it back unless the upgrade ends first.
func SetAside(pluginsDir, id string) (string, error) {
	old := UpgradingFolder(pluginsDir, id)
	if err := os.MkdirAll(filepath.Dir(old), 0o700); err != nil {
		return "", err
	}
	if err := os.RemoveAll(old); err != nil {
		return "", err
	}
	return old, os.Rename(filepath.Join(pluginsDir, id), old)
}

// RestoreUpgrades finishes upgrades that were cut short: an old folder
// whose plugin folder is missing is put back; one whose new folder was
// installed is removed. It returns the ids put back.
func RestoreUpgrades(pluginsDir string) ([]string, error) {
	dir := filepath.Join(filepath.Dir(filepath.Clean(pluginsDir)), UpgradingDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var back []string
	for _, e := range entries {
		old, dst := filepath.Join(dir, e.Name()), filepath.Join(pluginsDir, e.Name())
		if _, err := os.Lstat(dst); err == nil {
			err = os.RemoveAll(old)
		} else if errors.Is(err, fs.ErrNotExist) {
			if err = os.Rename(old, dst); err == nil {
				back = append(back, e.Name())
			}
		}
		if err != nil {
			return back, fmt.Errorf("restoring the plugin folder %s from an upgrade cut short: %w", dst, err)
		}
	}
	return back, nil
}
