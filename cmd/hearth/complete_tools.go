package main

import (
	"context"
	"os"
	"path/filepath"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/store"
)

// toolNames are the tools the data directory's catalogue has recorded:
// every tool of every plugin that ran there, running now or not, as
// hearth policy lists them. A data directory without a database gives
// none (completing does not create one).
func toolNames(dataDir string) []string {
	dir, err := config.DataDir(dataDir, nil)
	if err != nil {
		return nil
	}
	path := filepath.Join(dir, store.FileName)
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	st, err := store.OpenFile(context.Background(), path)
	if err != nil {
		return nil
	}
	defer st.Close()
	list, err := st.Catalog(context.Background())
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(list))
	for _, e := range list {
		names = append(names, e.Tool)
	}
	return names
}
