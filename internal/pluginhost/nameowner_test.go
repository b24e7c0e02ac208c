//go:build unix

package pluginhost

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/pluginrpc"
)

// The holder runs from init, before TestMain: a plugin that keeps a
// secret, a KV value and a file under its name (tool stash) and shows
// what it finds there (tool peek).
func init() {
	if os.Getenv("HEARTH_TEST_NAMES_CHILD") == "holder" {
		pluginrpc.Serve(func(name string, _ map[string]any) (sdk.Plugin, error) { return &holder{name: name}, nil })
		os.Exit(9)
	}
}

type holder struct{ name string }

func (p *holder) Name() string { return p.name }
func (p *holder) Stop() error  { return nil }
func (p *holder) Start(s *sdk.PluginSDK) error {
	if err := s.RegisterToolContext("stash", sdk.ToolDef{}, func(ctx context.Context, tc *sdk.ToolContext, _ map[string]any) (any, error) {
		if err := s.Settings().Set("token", "victim-secret-token"); err != nil {
			return nil, err
		}
		if err := tc.KV.Set(ctx, "k", "victim-kv-value"); err != nil {
			return nil, err
		}
		return "stashed", os.WriteFile(filepath.Join(s.DataDir(), "notes.txt"), []byte("victim's notes"), 0o600)
	}); err != nil {
		return err
	}
	return s.RegisterToolContext("peek", sdk.ToolDef{}, func(ctx context.Context, tc *sdk.ToolContext, _ map[string]any) (any, error) {
		token, _ := s.Settings().Get("token")
		var kv string
		if _, err := tc.KV.Get(ctx, "k", &kv); err != nil {
			return nil, err
		}
		entries, _ := os.ReadDir(s.DataDir())
		files := []string{}
		for _, e := range entries {
			files = append(files, e.Name())
		}
		return map[string]any{"token": token, "kv": kv, "files": files}, nil
	})
}

func writeHolder(t *testing.T, dir, id string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(Manifest{ID: id, Command: []string{os.Args[0]}, Capabilities: []string{"settings", "kv"},
		Env: map[string]string{"HEARTH_TEST_NAMES_CHILD": "holder"}})
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// holderFixture is a fixture whose plugins have settings and KV in st.
func holderFixture(t *testing.T) (*fixture, *store.Store) {
	t.Helper()
	f := newFixture(t)
	st := openStore(t, f.data)
	f.opts.Settings = settings.New(st, f.data)
	return f, st
}

// peek calls <name>__peek.
func (f *fixture) peek(t *testing.T, name string) string {
	t.Helper()
	got, isErr := f.call(name+"__peek", `{}`)
	if isErr {
		t.Fatalf("peek: %s", got)
	}
	return got
}

const victimPeek = `{"files":["notes.txt"],"kv":"victim-kv-value","token":"victim-secret-token"}`

// A plugin name stays with the folder that first ran under it: while the
// owner's plugin.json is invalid for a scan, another folder asking for the
// name is refused (in this Hearth and at a fresh start), it never sees the
// owner's secret, KV or data folder, and the owner runs again once its
// file is back.
func TestNameOwnerSurvivesBadManifest(t *testing.T) {
	ctx := context.Background()
	f, st := holderFixture(t)
	plugins := t.TempDir()
	victim, zz := filepath.Join(plugins, "victim"), filepath.Join(plugins, "zz")
	m := NewManager(plugins, st, &f.opts)
	defer func() { m.Close() }()

	writeHolder(t, victim, "victim")
	if err := m.Scan(ctx); err != nil {
		t.Fatal(err)
	}
	m.WaitReady(ctx)
	if got, isErr := f.call("victim__stash", `{}`); isErr {
		t.Fatalf("stash: %s", got)
	}
	writeHolder(t, zz, "victim")
	good, err := os.ReadFile(filepath.Join(victim, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	refused := func(m *Manager, when string) {
		t.Helper()
		got := info(t, m, zz)
		want := `the plugin name "victim" belongs to the plugin in ` + victim
		if !strings.Contains(got.Error, want) || !strings.Contains(got.Error, "`hearth plugin forget victim`") || got.Status != nil {
			t.Fatalf("%s: zz: error %q, status %+v; want it refused, saying %q and how to free the name", when, got.Error, got.Status, want)
		}
	}

	// One scan with the owner's plugin.json invalid.
	if err := os.WriteFile(filepath.Join(victim, ManifestFile), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	m.Scan(ctx)
	m.WaitReady(ctx)
	refused(m, "owner invalid")
	if _, ok := f.k.Tools().Lookup("victim__peek"); ok {
		t.Fatalf("a plugin runs under the name while its owner is invalid: %s", f.peek(t, "victim"))
	}
	// The same at a fresh start, the owner still invalid.
	m.Close()
	m = NewManager(plugins, st, &f.opts)
	m.Scan(ctx)
	m.WaitReady(ctx)
	refused(m, "fresh start, owner invalid")
	if _, ok := f.k.Tools().Lookup("victim__peek"); ok {
		t.Fatalf("a plugin runs under the name at a fresh start while its owner is invalid: %s", f.peek(t, "victim"))
	}

	// The owner's file is back: the owner runs, with its own things.
	if err := os.WriteFile(filepath.Join(victim, ManifestFile), good, 0o644); err != nil {
		t.Fatal(err)
	}
	m.Scan(ctx)
	m.WaitReady(ctx)
	refused(m, "owner back")
	if got := info(t, m, victim); got.Error != "" || got.Status == nil || got.Status.State != Running {
		t.Fatalf("the owner did not come back: %q %+v", got.Error, got.Status)
	}
	if got := f.peek(t, "victim"); got != victimPeek {
		t.Fatalf("the owner's things: %s", got)
	}
}

// A removed plugin's name does not pass, with its secret, KV and data
// folder, to another folder asking for it; after forget, the next holder
// starts clean, and what was removed is in the trash.
func TestForgetFreesNameClean(t *testing.T) {
	ctx := context.Background()
	f, st := holderFixture(t)
	plugins := t.TempDir()
	victim, zz := filepath.Join(plugins, "victim"), filepath.Join(plugins, "zz")
	m := NewManager(plugins, st, &f.opts)
	defer func() { m.Close() }()

	writeHolder(t, victim, "victim")
	if err := m.Scan(ctx); err != nil {
		t.Fatal(err)
	}
	m.WaitReady(ctx)
	if got, isErr := f.call("victim__stash", `{}`); isErr {
		t.Fatalf("stash: %s", got)
	}
	m.Close()

	// Uninstalled by deleting its folder: the name waits for it.
	if err := os.RemoveAll(victim); err != nil {
		t.Fatal(err)
	}
	writeHolder(t, zz, "victim")
	m = NewManager(plugins, st, &f.opts)
	m.Scan(ctx)
	m.WaitReady(ctx)
	if got := info(t, m, zz); !strings.Contains(got.Error, "belongs to the plugin in "+victim) || got.Status != nil {
		t.Fatalf("zz after the owner was deleted: %q %+v", got.Error, got.Status)
	}
	if _, ok := f.k.Tools().Lookup("victim__peek"); ok {
		t.Fatalf("zz runs under the deleted owner's name: %s", f.peek(t, "victim"))
	}
	m.Close()

	if _, err := Forget(ctx, st, f.data, plugins, "core"); err == nil {
		t.Fatal("forgot Hearth's own namespace")
	}
	got, err := Forget(ctx, st, f.data, plugins, "victim")
	if err != nil {
		t.Fatal(err)
	}
	if got.Owner != victim || len(got.Data) != 1 || got.Store.Settings["victim"]["token"] == nil ||
		got.Store.KV["victim"]["k"] == nil || got.Trash == "" {
		t.Fatalf("forgotten: %+v %+v", got, got.Store)
	}
	if b, err := os.ReadFile(filepath.Join(got.Trash, "plugin_data", "victim", "notes.txt")); err != nil || string(b) != "victim's notes" {
		t.Fatalf("the data folder in the trash: %q %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(got.Trash, "store.json")); err != nil || !strings.Contains(string(b), "victim-kv-value") {
		t.Fatalf("store.json in the trash: %q %v", b, err)
	}

	m = NewManager(plugins, st, &f.opts)
	if err := m.Scan(ctx); err != nil {
		t.Fatal(err)
	}
	m.WaitReady(ctx)
	if got := f.peek(t, "victim"); got != `{"files":[],"kv":"","token":null}` {
		t.Fatalf("the new holder sees: %s", got)
	}
	// A .so in a folder named like the name is refused before its
	// library is opened (this one is not even a library).
	so := filepath.Join(plugins, "victim")
	if err := os.MkdirAll(so, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(so, "victim.so"), []byte("not a library"), 0o644); err != nil {
		t.Fatal(err)
	}
	m.Scan(ctx)
	if got := info(t, m, so); !strings.Contains(got.Error, "the plugin name \"victim\" belongs to the plugin in "+zz) {
		t.Fatalf(".so: %q", got.Error)
	}
	if err := os.RemoveAll(so); err != nil {
		t.Fatal(err)
	}
	m.Close()

	// Installing another folder with the name is refused up front.
	src := filepath.Join(t.TempDir(), "other")
	writeHolder(t, src, "victim")
	if _, err := InstallFolder(ctx, st, plugins, src); err == nil || !strings.Contains(err.Error(), "belongs to the plugin in "+zz) {
		t.Fatalf("install of another folder with the name: %v", err)
	}

	// Remove moves the new holder's folder away too, and frees the name.
	got, err = Remove(ctx, st, f.data, plugins, "victim")
	if err != nil {
		t.Fatal(err)
	}
	if got.Folder != zz || got.Owner != zz {
		t.Fatalf("removed: %+v", got)
	}
	if _, err := os.Stat(zz); !os.IsNotExist(err) {
		t.Fatalf("the folder is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(got.Trash, "folder", "zz", ManifestFile)); err != nil {
		t.Fatal(err)
	}
	if owners, _ := st.PluginOwners(ctx); len(owners) != 0 {
		t.Fatalf("owners after remove: %v", owners)
	}
}
