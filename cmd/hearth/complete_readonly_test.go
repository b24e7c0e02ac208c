package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hearth-agent/hearth/internal/store"
)

// A Tab press (`hearth policy set <TAB>`) opens the database read-only:
// it never chmods, converts to WAL, migrates or waits behind a running
// hearth serve. Here a 0-byte database file must stay 0 bytes.
func TestCompletionDoesNotWriteDatabase(t *testing.T) {
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
