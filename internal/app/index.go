package app

import (
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/search"
)

// flushEvery is how often the owner of the data directory writes the
// search index's changes to disk while Hearth runs (and at Close). A
// crash loses at most this much of the index, which the entries' owners
// re-index by their stamps at the next start.
const flushEvery = 30 * time.Second

// openIndex opens the search index kept in dir: with Open for the process
// that owns the data directory, which writes it; with Load, which changes
// nothing on disk, for any other.
func openIndex(dir string, owner bool) (*search.Index, error) {
	if owner {
		return search.Open(dir)
	}
	return search.Load(dir)
}

// startFlushing flushes the search index every flushEvery until Close;
// only the process that owns the data directory does.
func (a *App) startFlushing() {
	if a.lock == nil {
		return
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(flushEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if err := a.Index.Flush(); err != nil {
					a.Logger.Warn("writing the search index", "err", err)
				}
			}
		}
	}()
	a.stopFlush = func() { close(stop); wg.Wait() }
}
