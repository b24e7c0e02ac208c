package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hearth-agent/hearth/internal/store"
)

// r3: a Tab press (`hearth policy set <TAB>`) opens the database
// read-write through store.OpenFile: it chmods, converts to WAL, runs
// migrations and prepares write statements (each wait up to 5 s behind a
// running hearth serve). Here a 0-byte database file is turned into a
// full Hearth schema by completing.
func TestR3CompletionDoesNotWriteDatabase(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, store.FileName)
	if err := os.WriteFile(db, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	toolNames(dir)
	fi, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	_, walErr := os.Stat(db + "-wal")
	if fi.Size() != 0 || walErr == nil {
		t.Fatalf("completion wrote the database: size %d, -wal exists: %v", fi.Size(), walErr == nil)
	}
}
