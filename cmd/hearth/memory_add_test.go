package main

import (
	"context"
	"database/sql"
	"encoding/json"
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

// What forget, correct and add print masks a key as list does, unless
// --reveal: the old text of a fact holding a key is not printed whole.
func TestMemoryChangesPrintKeysMasked(t *testing.T) {
	const key = "sk-proj-Abcdefgh12345678Zyx"
	srv := llmtest.NewServer(t)
	env := []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "HEARTH_HOME=" + t.TempDir()}
	run := func(args ...string) string {
		t.Helper()
		out, errOut, code := hearth(t, env, "", append([]string{"memory"}, args...)...)
		if code != 0 {
			t.Fatalf("hearth memory %v: exit %d, %q %q", args, code, out, errOut)
		}
		return out
	}
	for _, out := range []string{
		run("add", "--json", "the vault key is "+key),
		run("correct", "--json", memoryIDOf(t, run("search", "--json", "--reveal", "vault")), "the vault key is "+key+" still"),
		run("forget", "--json", memoryIDOf(t, run("search", "--json", "vault"))),
	} {
		if !strings.Contains(out, "the vault key is") || strings.Contains(out, key) {
			t.Errorf("printed: %q", out)
		}
	}
	out := run("add", "--json", "--reveal", "the door key is "+key)
	if !strings.Contains(out, key) {
		t.Errorf("--reveal printed: %q", out)
	}
}

func memoryIDOf(t *testing.T, out string) string {
	t.Helper()
	var list []memoryEntry
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) == 0 {
		t.Fatalf("search: %q, %v", out, err)
	}
	return list[0].ID
}

// hearth memory show takes a relation's id as list prints it, as forget
// does; the same relation in two scopes is named with --scope, and an id
// that names nothing is told what show takes.
func TestMemoryShowRelation(t *testing.T) {
	srv := llmtest.NewServer(t)
	env := []string{"OPENAI_BASE_URL=" + srv.URL, "HEARTH_MODEL=test-model", "HEARTH_HOME=" + t.TempDir()}
	run := func(want int, args ...string) (string, string) {
		t.Helper()
		out, errOut, code := hearth(t, env, "", append([]string{"memory"}, args...)...)
		if code != want {
			t.Fatalf("hearth memory %v: exit %d, want %d; %q %q", args, code, want, out, errOut)
		}
		return out, errOut
	}
	run(0, "add", "--scope", "global", "Bob|lives_in|Lyon")
	run(0, "add", "Bob|likes|green tea")
	out, _ := run(0, "list", "--json")
	var list []memoryEntry
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	var id string
	for _, e := range list {
		if e.Kind == "relation" && e.Text == "Bob likes green tea" {
			id = e.ID
		}
	}
	if id != "Bob|likes|green tea" {
		t.Fatalf("no relation in list: %+v", list)
	}
	if out, _ := run(0, "show", id); out != "Bob|likes|green tea\towner\t-\tBob likes green tea\n" {
		t.Errorf("show %s = %q", id, out)
	}
	var e memoryEntry
	if out, _ := run(0, "show", "--json", "Bob|lives_in|Lyon"); json.Unmarshal([]byte(out), &e) != nil ||
		e.Kind != "relation" || e.Scope != "global" || e.Text != "Bob lives_in Lyon" {
		t.Errorf("show --json = %q", out)
	}
	run(0, "add", "--scope", "owner", "Bob|lives_in|Lyon")
	if _, errOut := run(1, "show", "Bob|lives_in|Lyon"); !strings.Contains(errOut, "--scope") ||
		!strings.Contains(errOut, "global") || !strings.Contains(errOut, "owner") {
		t.Errorf("show of a relation in two scopes: %q", errOut)
	}
	if out, _ := run(0, "show", "--scope", "owner", "Bob|lives_in|Lyon"); !strings.HasPrefix(out, "Bob|lives_in|Lyon\towner\t") {
		t.Errorf("show --scope owner = %q", out)
	}
	if _, errOut := run(1, "show", "Bob|lives_in|Paris"); !strings.Contains(errOut, "SOURCE|RELATION|TARGET") {
		t.Errorf("show of no relation: %q", errOut)
	}
	if out, _ := run(0, "show", "--scope", "owner", "Bob"); !strings.Contains(out, "Bob likes green tea") {
		t.Errorf("show of the entity: %q", out)
	}
}
