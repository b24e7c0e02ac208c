package search

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
)

// The benchmark corpus: deterministic, mixed-language documents of about
// 1 KB. Half are Chinese prose (words of one to four characters drawn,
// Zipf-distributed, from a lexicon built over 4,000 common-range Han
// characters, themselves Zipf-weighted, with punctuation every few words
// and the odd English word), half English (words drawn the same way from
// 30,000 made-up words of one to four syllables, a few Chinese words
// mixed in). Queries are two to four words from the same distributions
// restricted to words below the 50 most common, as a person would type.
type corpus struct {
	docs    []string
	bytes   int
	queries []string
}

const (
	zhChars  = 4000
	zhWords  = 40000
	enWords  = 30000
	docBytes = 1000
)

type lexicon struct {
	zh, en []string
}

func newLexicon() *lexicon {
	r := rand.New(rand.NewPCG(13, 1))
	chars := make([]rune, zhChars)
	for i := range chars {
		chars[i] = rune(0x4E00 + r.IntN(0x9FA5-0x4E00))
	}
	cz := rand.NewZipf(r, 1.05, 2, zhChars-1)
	lx := &lexicon{}
	seen := map[string]bool{}
	for len(lx.zh) < zhWords {
		n := []int{1, 2, 2, 2, 2, 3, 3, 4}[r.IntN(8)]
		var w []rune
		for range n {
			w = append(w, chars[cz.Uint64()])
		}
		if s := string(w); !seen[s] {
			seen[s] = true
			lx.zh = append(lx.zh, s)
		}
	}
	syll := []string{"ka", "to", "ri", "men", "sa", "lo", "ver", "an", "pre", "di", "con", "ble", "tion", "ing", "er", "ba", "mo", "ne", "qu", "st", "el", "in", "or", "ph", "ex", "um"}
	for len(lx.en) < enWords {
		var w strings.Builder
		for range 1 + r.IntN(4) {
			w.WriteString(syll[r.IntN(len(syll))])
		}
		if s := w.String(); !seen[s] {
			seen[s] = true
			lx.en = append(lx.en, s)
		}
	}
	return lx
}

func newCorpus(n int) *corpus {
	lx := newLexicon()
	r := rand.New(rand.NewPCG(17, uint64(n)))
	zz := rand.NewZipf(r, 1.07, 3, zhWords-1)
	ez := rand.NewZipf(r, 1.07, 3, enWords-1)
	c := &corpus{docs: make([]string, n)}
	var s strings.Builder
	for i := range c.docs {
		s.Reset()
		zh := i%2 == 0
		for s.Len() < docBytes {
			switch {
			case zh && r.IntN(40) != 0:
				s.WriteString(lx.zh[zz.Uint64()])
				if r.IntN(8) == 0 {
					s.WriteString([]string{"，", "。", "、", "；"}[r.IntN(4)])
				}
			case zh:
				s.WriteString(" " + lx.en[ez.Uint64()] + " ")
			case r.IntN(60) == 0:
				s.WriteString(lx.zh[zz.Uint64()] + " ")
			default:
				s.WriteString(lx.en[ez.Uint64()])
				if r.IntN(12) == 0 {
					s.WriteString(". ")
				} else {
					s.WriteString(" ")
				}
			}
		}
		c.docs[i] = s.String()
		c.bytes += s.Len()
	}
	qz := rand.NewZipf(r, 1.07, 3, zhWords-51)
	qe := rand.NewZipf(r, 1.07, 3, enWords-51)
	for i := range 2000 {
		var q []string
		for range 2 + r.IntN(3) {
			if i%2 == 0 {
				q = append(q, lx.zh[50+qz.Uint64()])
			} else {
				q = append(q, lx.en[50+qe.Uint64()])
			}
		}
		if i%2 == 0 {
			// Chinese queries are typed without spaces and are shorter: two
			// words give about as many terms as four English ones.
			c.queries = append(c.queries, strings.Join(q[:min(len(q), 2)], ""))
		} else {
			c.queries = append(c.queries, strings.Join(q, " "))
		}
	}
	return c
}

var (
	corpora   = map[int]*corpus{}
	corporaMu sync.Mutex
)

// benchCorpus returns the corpus of 100,000 documents with
// HEARTH_BENCH_FULL=1, else of 2,000 (CI runs every benchmark once, under
// the race detector, to keep them from rotting).
func benchCorpus(b *testing.B) *corpus {
	n := 2000
	if os.Getenv("HEARTH_BENCH_FULL") == "1" && !testing.Short() {
		n = 100_000
	}
	corporaMu.Lock()
	defer corporaMu.Unlock()
	if c := corpora[n]; c != nil {
		return c
	}
	b.StopTimer()
	defer b.StartTimer()
	c := newCorpus(n)
	corpora[n] = c
	return c
}

func docID(i int) string { return fmt.Sprintf("d:%06d", i) }

// docMeta gives every tenth document the tag a filter passes.
func docMeta(i int) Meta { return Meta{Tag: uint32(i%10 + 1), Stamp: int64(i)} }

func passTenth(m Meta) bool { return m.Tag == 4 }
