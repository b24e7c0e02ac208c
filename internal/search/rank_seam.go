package search

// The one place ranking reads the index engine's internals.

// docFreqs returns the number of documents in the index and the number
// holding each term of terms. It is a seam over the index's postings: the
// index engine keeps it working as its internals change.
func (x *Index) docFreqs(terms map[string]float64) (int, map[string]int) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	df := make(map[string]int, len(terms))
	for t := range terms {
		n := len(x.mem[t])
		if i := x.seg.lookup(t); i >= 0 {
			n += int(x.df[i])
		}
		df[t] = n
	}
	return x.live, df
}
