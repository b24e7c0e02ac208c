package store

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// The test binary is also the child that TestGraphCommitKilledMidway
// kills: with HEARTH_STORE_CRASH_CHILD set to a data directory, it
// commits three batches of triples there, then a fourth that stops
// inside its transaction, its writes made and not committed, and says
// so on stdout.
func TestMain(m *testing.M) {
	if dir := os.Getenv("HEARTH_STORE_CRASH_CHILD"); dir != "" {
		os.Exit(commitThenHang(dir))
	}
	os.Exit(m.Run())
}

const crashBatch = 500

func crashTriples(i int) []Triple {
	batch := make([]Triple, crashBatch)
	for j := range batch {
		batch[j] = Triple{Subject: fmt.Sprintf("b%d-s%d", i, j), Relation: "r", Object: fmt.Sprintf("b%d-o%d", i, j)}
	}
	return batch
}

func commitThenHang(dir string) int {
	ctx := context.Background()
	st, err := Open(ctx, dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for i := range 4 {
		if i == 3 {
			inCommit = func() {
				fmt.Println("inside")
				select {} // until killed
			}
		}
		if _, err := st.CommitTriples(ctx, Key{Scope: "global"}, crashTriples(i)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("done %d\n", i)
	}
	return 0
}

// A process killed in the middle of committing to the graph leaves it
// consistent: the batches committed are whole, the one whose transaction
// was open when the process died is absent, and the database passes
// SQLite's integrity check.
func TestGraphCommitKilledMidway(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "HEARTH_STORE_CRASH_CHILD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if sc.Text() == "inside" {
			cmd.Process.Kill() // SIGKILL: no deferred code, no clean close
			break
		}
	}
	cmd.Wait()
	if len(lines) != 4 || lines[3] != "inside" {
		t.Fatalf("the child said %q", lines)
	}

	ctx := context.Background()
	st, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i := range 4 {
		_, rels, err := st.RelationPage(ctx, All, fmt.Sprintf("b%d-s", i), 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		_, ents, err := st.EntityPage(ctx, All, fmt.Sprintf("b%d-", i), 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		want := crashBatch
		if i == 3 {
			want = 0
		}
		if rels != want || ents != 2*want {
			t.Errorf("batch %d: %d relations, %d entities; want %d, %d", i, rels, ents, want, 2*want)
		}
	}
	if ok, err := st.IntegrityCheck(ctx); err != nil || !ok {
		t.Fatalf("integrity check: %v %v", ok, err)
	}
	// And it is written to as before.
	if _, err := st.CommitTriples(ctx, Key{Scope: "global"}, crashTriples(3)); err != nil {
		t.Fatal(err)
	}
}
