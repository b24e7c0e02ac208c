package search

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	_ "modernc.org/sqlite" // the FTS5 baseline
)

// ftsSystem returns the SQLite FTS5 baseline with tokenizer ("trigram" or
// "unicode61"), ranked by FTS5's bm25, in a database file under dir.
func ftsSystem(tokenizer string) func(*Collection, string) (Ranker, func(), error) {
	return func(c *Collection, dir string) (Ranker, func(), error) {
		path := filepath.Join(dir, c.Name+"-"+tokenizer+".db")
		os.Remove(path)
		db, err := sql.Open("sqlite", path)
		if err != nil {
			return nil, nil, fmt.Errorf("opening %s: %w", path, err)
		}
		done := func() { db.Close(); os.Remove(path) }
		if err := loadFTS(db, tokenizer, c.Docs); err != nil {
			done()
			return nil, nil, err
		}
		rank := func(q string) []string {
			match := ftsMatch(q, tokenizer == "trigram")
			if match == "" {
				return nil
			}
			rows, err := db.Query(`SELECT id FROM docs WHERE docs MATCH ? ORDER BY rank LIMIT 10`, match)
			if err != nil {
				return nil
			}
			defer rows.Close()
			var ids []string
			for rows.Next() {
				var id string
				if rows.Scan(&id) == nil {
					ids = append(ids, id)
				}
			}
			return ids
		}
		return rank, done, nil
	}
}

func loadFTS(db *sql.DB, tokenizer string, docs []EvalDoc) error {
	if _, err := db.Exec(`CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, body, tokenize='` + tokenizer + `')`); err != nil {
		return fmt.Errorf("creating FTS5 table: %w", err)
	}
	tx, err := db.Begin()
	if err != nil {
		return fmt.Errorf("loading FTS5: %w", err)
	}
	defer tx.Rollback()
	for _, d := range docs {
		if _, err := tx.Exec(`INSERT INTO docs(id, body) VALUES (?, ?)`, d.ID, d.Body()); err != nil {
			return fmt.Errorf("loading FTS5: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("loading FTS5: %w", err)
	}
	return nil
}

// ftsMatch turns a query into an FTS5 MATCH expression: its words, ORed,
// or for the trigram tokenizer every three-character window of them (it
// matches substrings, and none shorter than three characters).
func ftsMatch(q string, trigram bool) string {
	var terms []string
	for _, w := range strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) {
		if !trigram {
			terms = append(terms, `"`+w+`"`)
			continue
		}
		r := []rune(w)
		for i := 0; i+3 <= len(r); i++ {
			terms = append(terms, `"`+string(r[i:i+3])+`"`)
		}
	}
	return strings.Join(terms, " OR ")
}
