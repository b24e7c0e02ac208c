package main

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// hearth memory add "S|R|O" takes its fact back when the relation cannot
// be written; a fact remembered before with the same words is not its to
// take: the failed add loses nothing that was there. The store fails for
// real (a SQLite trigger refuses every new relation).
func TestMemoryAddFailingRelationKeepsTheFactThatWasThere(t *testing.T) {
	srv := llmtest.NewServer(t)
	home := t.TempDir()
	env := []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "HEARTH_HOME=" + home}
	if out, errOut, code := hearth(t, env, "", "memory", "add", "Dana likes tea"); code != 0 {
		t.Fatalf("add: %d %q %q", code, out, errOut)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(home, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(context.Background(), `CREATE TRIGGER no_relations BEFORE INSERT ON mem_relations
		BEGIN SELECT RAISE(ABORT, 'the disk says no'); END`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	out, errOut, code := hearth(t, env, "", "memory", "add", "Dana|likes|tea")
	if code == 0 || !strings.Contains(errOut, "the disk says no") {
		t.Fatalf("add with the relation refused: %d %q %q", code, out, errOut)
	}
	if out, errOut, code := hearth(t, env, "", "memory", "search", "Dana tea"); code != 0 || !strings.Contains(out, "Dana likes tea") {
		t.Fatalf("the fact remembered before is gone: %d %q %q", code, out, errOut)
	}
}
