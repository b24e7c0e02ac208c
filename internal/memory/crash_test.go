package memory

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/store"
)

// The test binary is also the child that TestGraphCommitKilledMidway
// kills: with HEARTH_MEMORY_CHILD set to a data directory, it commits
// batches of triples there, one transaction each, until it is killed.
func TestMain(m *testing.M) {
	if dir := os.Getenv("HEARTH_MEMORY_CHILD"); dir != "" {
		os.Exit(commitForever(dir))
	}
	os.Exit(m.Run())
}

const crashBatch = 3000

func commitForever(dir string) int {
	ctx := context.Background()
	st, err := store.Open(ctx, dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for i := 0; ; i++ {
		batch := make([]store.Triple, crashBatch)
		for j := range batch {
			batch[j] = store.Triple{Subject: fmt.Sprintf("b%d-s%d", i, j), Relation: "r", Object: fmt.Sprintf("b%d-o%d", i, j)}
		}
		fmt.Printf("begin %d\n", i)
		if _, err := st.CommitTriples(ctx, store.Key{Scope: "global"}, batch); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("done %d\n", i)
	}
}

// A process killed in the middle of committing to the graph leaves it
// consistent: each batch's transaction is whole or absent, and the
// database opens and passes SQLite's integrity check.
func TestGraphCommitKilledMidway(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "HEARTH_MEMORY_CHILD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	done := -1
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "done ") {
			fmt.Sscan(line[5:], &done)
		}
		if line == "begin 3" {
			cmd.Process.Kill() // SIGKILL: no deferred code, no clean close
			break
		}
	}
	cmd.Wait()
	if done != 2 {
		t.Fatalf("the child got to batch %d", done)
	}

	ctx := context.Background()
	st, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i := 0; i <= 4; i++ {
		_, n, err := st.RelationPage(ctx, store.All, fmt.Sprintf("b%d-s", i), 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		_, ents, _ := st.EntityPage(ctx, store.All, fmt.Sprintf("b%d-", i), 0, 1)
		switch {
		case i <= 2 && (n != crashBatch || ents != 2*crashBatch):
			t.Errorf("committed batch %d has %d relations, %d entities", i, n, ents)
		case i > 2 && (n != 0 && n != crashBatch || ents != 0 && ents != 2*crashBatch):
			t.Errorf("batch %d is half there: %d relations, %d entities", i, n, ents)
		case i == 3:
			t.Logf("batch 3, killed while committing: %d relations", n)
		}
	}
	if ok, err := st.IntegrityCheck(ctx); err != nil || !ok {
		t.Fatalf("integrity check: %v %v", ok, err)
	}
}
