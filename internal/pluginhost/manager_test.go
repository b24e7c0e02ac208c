//go:build unix

package pluginhost

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/store"
)

func writePlugin(t *testing.T, dir, id, mode string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(Manifest{ID: id, Command: []string{os.Args[0]}, Env: map[string]string{"HEARTH_TEST_CHILD": mode}})
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestManagerHotLoadsEnablesReloads(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	st := openStore(t, t.TempDir())
	plugins := t.TempDir()
	m := NewManager(plugins, st, &f.opts)
	defer m.Close()

	has := func(tool string) bool { _, ok := f.k.Tools().Lookup(tool); return ok }
	status := func(id string) *Status {
		list, err := m.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range list {
			if i.ID == id {
				return i.Status
			}
		}
		return nil
	}

	// A folder dropped in is live after a scan.
	writePlugin(t, filepath.Join(plugins, "one"), "one", "ok")
	if err := m.Scan(ctx); err != nil {
		t.Fatal(err)
	}
	m.WaitReady(ctx)
	if !has("one__echo") {
		t.Fatal("new plugin not loaded")
	}
	pid := status("one").PID

	// A changed plugin.json restarts it.
	later := time.Now().Add(time.Minute)
	os.Chtimes(filepath.Join(plugins, "one", ManifestFile), later, later)
	m.Scan(ctx)
	m.WaitReady(ctx)
	if s := status("one"); s == nil || s.PID == pid || !has("one__echo") {
		t.Fatalf("not reloaded after a change: %+v", s)
	}

	// Disable persists and withdraws; enable brings it back.
	if err := m.SetEnabled(ctx, "one", false); err != nil {
		t.Fatal(err)
	}
	if has("one__echo") || status("one") != nil {
		t.Fatal("disabled plugin still running")
	}
	m2 := NewManager(plugins, st, &f.opts) // as after a restart of Hearth
	m2.Scan(ctx)
	if list, _ := m2.List(ctx); len(list) != 1 || list[0].Enabled || list[0].Status != nil {
		t.Fatalf("disable not persisted: %+v", list)
	}
	m2.Close()
	m.SetEnabled(ctx, "one", true)
	m.WaitReady(ctx)
	if !has("one__echo") {
		t.Fatal("enabled plugin not back")
	}

	// Reload replaces the process.
	pid = status("one").PID
	if err := m.Reload(ctx, "one"); err != nil {
		t.Fatal(err)
	}
	m.WaitReady(ctx)
	if s := status("one"); s == nil || s.PID == pid {
		t.Fatalf("reload kept the process: %+v", s)
	}

	// A broken plugin.json is reported, not fatal.
	os.MkdirAll(filepath.Join(plugins, "broken"), 0o755)
	os.WriteFile(filepath.Join(plugins, "broken", ManifestFile), []byte(`{"id": "Broken!"}`), 0o644)
	m.Scan(ctx)
	list, _ := m.List(ctx)
	if len(list) != 2 || list[0].Error == "" || !strings.Contains(list[0].Error, "id") {
		t.Fatalf("list %+v", list)
	}

	// Install copies a folder in; removing the folder unloads.
	src := filepath.Join(t.TempDir(), "two")
	writePlugin(t, src, "two", "ok")
	if id, err := m.Install(ctx, src); err != nil || id != "two" {
		t.Fatal(id, err)
	}
	if _, err := m.Install(ctx, src); err == nil {
		t.Fatal("installed twice")
	}
	m.WaitReady(ctx)
	if !has("two__echo") {
		t.Fatal("installed plugin not loaded")
	}
	os.RemoveAll(filepath.Join(plugins, "two"))
	m.Scan(ctx)
	if has("two__echo") {
		t.Fatal("removed plugin still loaded")
	}
}

// openStore opens a store in dir, closed when the test ends.
func openStore(t *testing.T, dir string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
