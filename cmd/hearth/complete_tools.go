package main

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/store"
)

// completeWait bounds how long a Tab press waits for the database (behind
// a running hearth serve's write, say): completing is best effort.
const completeWait = 2 * time.Second

// toolNames are the tools the data directory's catalogue has recorded:
// every tool of every plugin that ran there, running now or not, as
// hearth policy lists them. The database is opened read-only (mode=ro,
// query_only, a short busy timeout, no migration): a missing database,
// one without a catalogue yet or one a newer Hearth changed gives none,
// and completing never creates, converts or migrates it.
func toolNames(dataDir string) []string {
	dir, err := config.DataDir(dataDir, nil)
	if err != nil {
		return nil
	}
	path := filepath.Join(dir, store.FileName)
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		return nil
	}
	u := url.URL{Scheme: "file", OmitHost: true, Path: path,
		RawQuery: "mode=ro&_pragma=query_only(1)&_pragma=busy_timeout(200)"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), completeWait)
	defer cancel()
	rows, err := db.QueryContext(ctx, `SELECT tool FROM tool_catalog ORDER BY tool`)
	if err != nil {
		return nil
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if rows.Scan(&n) != nil {
			return nil
		}
		names = append(names, n)
	}
	if rows.Err() != nil {
		return nil
	}
	return names
}
