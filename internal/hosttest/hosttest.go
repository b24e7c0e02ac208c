// Package hosttest runs a plugin in a test against Hearth's own host
// parts, for Hearth's tests: an sdktest.Harness whose stage handlers run in
// the kernel's pipeline (with its permission matrix: a write a stage does
// not allow is undone and logged), and, with Services, Hearth's own
// services on a temporary database. Plugin authors use sdk/sdktest, which
// links none of this (no SQLite).
//
// It lives under internal/ because it is made of Hearth's internals; the
// tool calls take the same path in both kits (sdk/toolcall).
package hosttest

import (
	"context"
	"log/slog"
	"path/filepath"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/knowledge"
	"github.com/hearth-agent/hearth/internal/memory"
	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/host"
	"github.com/hearth-agent/hearth/sdk/sdktest"
)

// Start is sdktest.Start with the kernel's stage pipeline.
func Start(t sdktest.T, name string, factory sdk.NewPlugin, config map[string]any) *sdktest.Harness {
	t.Helper()
	return StartWith(t, name, factory, config, nil)
}

// StartWith is sdktest.StartWith with the kernel's stage pipeline.
func StartWith(t sdktest.T, name string, factory sdk.NewPlugin, config map[string]any, options *sdktest.Options) *sdktest.Harness {
	t.Helper()
	var opts sdktest.Options
	if options != nil {
		opts = *options
	}
	opts.Stages = func(log *slog.Logger) sdktest.Stages { return kernel.NewPipeline(log) }
	return sdktest.StartWith(t, name, factory, config, &opts)
}

// Services returns Hearth's own services on a database and folders in a
// temporary directory of t, for sdktest.Options.Services: settings, KV,
// the graph, text and document memory, and the knowledge base, as a
// plugin gets them in Hearth (for the plugin named name). The database
// closes at cleanup.
func Services(t sdktest.T, name string) host.Services {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatalf("hosttest: opening a store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	docs, err := memory.NewDocs(st)
	if err != nil {
		t.Fatalf("hosttest: document memory: %v", err)
	}
	kb, err := knowledge.Open(filepath.Join(dir, "knowledge"))
	if err != nil {
		t.Fatalf("hosttest: knowledge base: %v", err)
	}
	svc := settings.New(st, dir)
	return host.Services{
		Settings: svc.For(name), KV: svc.KV(name),
		Memory: memory.NewGraph(st), TextMemory: memory.NewText(filepath.Join(dir, "memory", "text")),
		DocMemory: docs, Knowledge: kb,
	}
}
