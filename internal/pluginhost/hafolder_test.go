package pluginhost

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/store"
)

// TestHomeAgentFolderWhy: a HomeAgent folder (plg.json) that Hearth cannot
// load is listed with the reason, never skipped silently.
func TestHomeAgentFolderWhy(t *testing.T) {
	plugins := t.TempDir()
	write := func(folder string, files map[string]string) {
		dir := filepath.Join(plugins, folder)
		os.MkdirAll(dir, 0o755)
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	plg := func(name, entry string) string { return `{"name":"` + name + `","entry":"` + entry + `"}` }
	want := map[string]string{
		"bin_one":   "plugin.bin is a HomeAgent 1.x build",
		"src_one":   "a HomeAgent Go source folder",
		"lua_one":   "Lua plugin",
		"other":     `plg.json names the plugin "renamed" but its folder is "other"`,
		"empty_one": "without plugin.so",
		"bad_json":  "plg.json",
		"bad__id":   "must be",
		"escape":    "must be a file in the plugin's folder",
	}
	write("bin_one", map[string]string{"plg.json": plg("bin_one", "plugin.so"), "plugin.bin": "x"})
	write("src_one", map[string]string{"plg.json": plg("src_one", "plugin.so"), "go.mod": "module x\n", "plugin.go": "package main\n"})
	write("lua_one", map[string]string{"plg.json": plg("lua_one", "main.lua"), "main.lua": ""})
	write("other", map[string]string{"plg.json": plg("renamed", "plugin.so")})
	write("empty_one", map[string]string{"plg.json": plg("empty_one", "")})
	write("bad_json", map[string]string{"plg.json": "{"})
	write("bad__id", map[string]string{"plg.json": plg("bad__id", "")})
	write("escape", map[string]string{"plg.json": plg("escape", "../x.so")})
	write("unrelated", map[string]string{"notes.txt": "not a plugin"})

	k := kernel.New(nil, nil, nil)
	defer k.Close()
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m := NewManager(plugins, st, &Options{Host: k})
	defer m.Close()
	m.Scan(context.Background())
	list, err := m.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Info{}
	for _, p := range list {
		got[p.ID] = p
	}
	for id, msg := range want {
		p, ok := got[id]
		if !ok || p.Kind != "homeagent" || !strings.Contains(p.Error, msg) {
			t.Errorf("%s: %+v, want an error with %q", id, p, msg)
		}
	}
	if _, ok := got["unrelated"]; ok || len(got) != len(want) {
		t.Errorf("listed %+v", list)
	}
}
