// Command evalcmd evaluates the search index on retrieval collections:
//
//	go run ./internal/search/evalcmd [-levers] [-split dev|test] DIR...
//
// Each DIR holds docs.jsonl, queries.jsonl and qrels.tsv (see
// search.LoadCollection). It prints nDCG@10 and recall@10 per collection,
// split and system: plain BM25, SQLite FTS5 and Index.Query; with
// -levers, Index.Query with each of its levers turned off instead.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/hearth-agent/hearth/internal/search"
)

func main() {
	levers := flag.Bool("levers", false, "compare the levers of Index.Query instead of the systems")
	split := flag.String("split", "", "print only this split (dev or test)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: evalcmd [-levers] [-split dev|test] DIR...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Args(), *levers, *split); err != nil {
		fmt.Fprintln(os.Stderr, "evalcmd:", err)
		os.Exit(1)
	}
}

func run(dirs []string, levers bool, split string) error {
	tmp, err := os.MkdirTemp("", "evalcmd")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	systems := search.EvalSystems()
	if levers {
		systems = search.EvalLevers()
	}
	var all []search.EvalResult
	for _, dir := range dirs {
		c, err := search.LoadCollection(dir)
		if err != nil {
			return err
		}
		res, err := search.EvaluateAll(c, systems, tmp)
		if err != nil {
			return err
		}
		for _, r := range res {
			if split == "" || r.Split == split {
				all = append(all, r)
			}
		}
	}
	search.FormatResults(os.Stdout, all)
	return nil
}
