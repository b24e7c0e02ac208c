package search

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// The same corpus and queries on SQLite FTS5 (modernc.org/sqlite), for
// comparison: each document is stored as its Tokens joined by spaces, so
// both rank the same terms with BM25, and a query is its terms joined by
// OR, ranked by FTS5's bm25() (its k1 and b are ours).

var ftsDBs = map[int]*sql.DB{}

func buildFTS(b *testing.B, c *corpus, path string) (*sql.DB, time.Duration) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(wal)&_pragma=synchronous(normal)")
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, tag UNINDEXED, body, tokenize = 'unicode61 remove_diacritics 0')`); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	st, err := tx.Prepare(`INSERT INTO docs (id, tag, body) VALUES (?, ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	for i, d := range c.docs {
		if _, err := st.Exec(docID(i), docMeta(i).Tag, strings.Join(Tokens(d), " ")); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return db, time.Since(start)
}

func ftsQuery(q string) string {
	var terms []string
	for _, t := range Tokens(q) {
		terms = append(terms, `"`+strings.ReplaceAll(t, `"`, `""`)+`"`)
	}
	return strings.Join(terms, " OR ")
}

// BenchmarkFTS5Build100k indexes the corpus into an FTS5 table in a
// SQLite file and reports the rate and the file's size.
func BenchmarkFTS5Build100k(b *testing.B) {
	c := benchCorpus(b)
	for b.Loop() {
		path := filepath.Join(b.TempDir(), "fts.db")
		db, el := buildFTS(b, c, path)
		db.Close()
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(c.docs))/el.Seconds(), "docs/s")
		b.ReportMetric(float64(fi.Size())/1e6, "fileMB")
	}
}

// BenchmarkFTS5Query100k runs BenchmarkQuery100k's queries on FTS5.
func BenchmarkFTS5Query100k(b *testing.B) {
	c := benchCorpus(b)
	corporaMu.Lock()
	db := ftsDBs[len(c.docs)]
	if db == nil {
		b.StopTimer()
		db, _ = buildFTS(b, c, filepath.Join(b.TempDir(), "fts.db"))
		ftsDBs[len(c.docs)] = db
		b.StartTimer()
	}
	corporaMu.Unlock()
	for _, f := range []struct{ name, where string }{{"all", ""}, {"tenth", " AND tag = 4"}} {
		b.Run(f.name, func(b *testing.B) {
			st, err := db.Prepare(`SELECT id, bm25(docs) FROM docs WHERE docs MATCH ?` + f.where + ` ORDER BY bm25(docs) LIMIT 10`)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			lat := make([]time.Duration, 0, 4096)
			i, found := 0, 0
			for b.Loop() {
				q := ftsQuery(c.queries[i%len(c.queries)])
				i++
				start := time.Now()
				rows, err := st.Query(q)
				if err != nil {
					b.Fatal(err)
				}
				for rows.Next() {
					found++
				}
				if err := rows.Err(); err != nil {
					b.Fatal(err)
				}
				rows.Close()
				lat = append(lat, time.Since(start))
			}
			if found == 0 && b.N > 20 {
				b.Fatal("nothing found")
			}
			reportLatency(b, lat)
		})
	}
}
