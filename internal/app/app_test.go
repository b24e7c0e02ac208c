package app

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/store"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Open deletes the traces older than trace_days, and Close stops the
// daily pruning.
func TestOpenPrunesOldTraces(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		config string
		want   []string
	}{
		{"kept a week", `{"trace_days":7}`, []string{"new"}},
		{"default", `{}`, []string{"new", "month"}},
		{"none", `{"trace_days":-1}`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(c.config), 0o600); err != nil {
				t.Fatal(err)
			}
			st, err := store.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			now := time.Now()
			for id, age := range map[string]time.Duration{"new": time.Hour, "month": 20 * 24 * time.Hour, "old": 40 * 24 * time.Hour} {
				if err := st.SaveTrace(ctx, &store.Trace{ID: id, Channel: "test", Started: now.Add(-age), Outcome: store.TraceAnswered}); err != nil {
					t.Fatal(err)
				}
			}
			st.Close()

			a, err := Open(ctx, &Options{DataDir: dir, Plugins: PluginsStart, Getenv: func(string) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			list, err := a.Store.Traces(ctx, store.TraceFilter{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tr := range list {
				got = append(got, tr.ID)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("traces kept %v, want %v", got, c.want)
			}
		})
	}
}
