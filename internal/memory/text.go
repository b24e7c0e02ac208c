package memory

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/atomicfile"
	"github.com/hearth-agent/hearth/internal/datadir"
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
)

// Text is the text memory: the raw conversation log, one JSON line per
// event, in one folder per scope and one file a day
// (<dir>/<scope as a file name>/YYYY-MM-DD.jsonl, local time), so old
// days can be archived or deleted as files. Each line records its scope
// and writer. An append is one write of a whole line to a file opened
// for appending, so after a crash a line is whole or, if it was the
// last, cut short; readers skip a line cut short. It implements
// scope.Text.
type Text struct {
	dir string
	mu  sync.Mutex
}

var _ scope.Text = (*Text)(nil)

// TextEntry is one line of the text memory.
type TextEntry struct {
	sdk.TextEvent
	Scope  scope.Scope `json:"scope"`
	Writer string      `json:"writer"`
}

// MaxTextEvent is the most bytes one text memory event may take as its
// JSON line: Append refuses a larger one (ErrTextTooLarge), so that one
// call cannot fill the disk or make a day file unreadable in one go.
const MaxTextEvent = 64 << 10

// ErrTextTooLarge is the error of an Append of an event over MaxTextEvent.
var ErrTextTooLarge = errors.New("text memory event over 64 KiB")

var dayFile = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}\.jsonl$`)

// NewText returns the text memory kept in dir. Day files an earlier
// Hearth wrote in dir itself (one log for every conversation) move to
// the global scope's folder.
func NewText(dir string) (*Text, error) {
	t := &Text{dir: dir}
	global := filepath.Join(dir, ScopeDir(scope.Global))
	if err := finishMerges(dir, global); err != nil {
		return nil, fmt.Errorf("text memory: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return nil, fmt.Errorf("text memory: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() || !dayFile.MatchString(e.Name()) {
			continue
		}
		if err := os.MkdirAll(global, 0o700); err != nil {
			return nil, fmt.Errorf("text memory: %w", err)
		}
		if err := moveDay(filepath.Join(dir, e.Name()), filepath.Join(global, e.Name())); err != nil {
			return nil, fmt.Errorf("text memory: moving %s to the global scope: %w", e.Name(), err)
		}
	}
	return t, nil
}

// mergedSuffix names a day file merged from an old day file and the
// global scope's one of that day (moveDay): complete, waiting to replace
// the global one once the old one is gone.
const mergedSuffix = ".merged"

// inMove, if set (tests), is called after each step of a merge.
var inMove func(step string)

// moveDay moves the old day file from to the global scope's to. If to
// exists, the two are merged in three steps, each atomic, so that a
// process killed at any point loses no line and doubles none: to's lines
// then from's are written whole to to+".merged" (a temporary file
// renamed), from is removed, and the merged file is renamed over to. A
// start finishes a merge a crash cut short (finishMerges) before it moves
// anything.
func moveDay(from, to string) error {
	if _, err := os.Stat(to); errors.Is(err, os.ErrNotExist) {
		return os.Rename(from, to)
	}
	have, err := os.ReadFile(to)
	if err != nil {
		return err
	}
	add, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if len(have) > 0 && have[len(have)-1] != '\n' {
		have = append(have, '\n') // a line cut short stays a line of its own
	}
	if err := atomicfile.WriteFile(to+mergedSuffix, append(have, add...)); err != nil {
		return err
	}
	if inMove != nil {
		inMove("merged")
	}
	return finishMerge(from, to)
}

// finishMerge ends a merge whose merged file is complete: from is
// removed, then the merged file renamed over to.
func finishMerge(from, to string) error {
	if err := os.Remove(from); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := atomicfile.SyncDir(filepath.Dir(from)); err != nil {
		return err
	}
	if inMove != nil {
		inMove("removed")
	}
	if err := os.Rename(to+mergedSuffix, to); err != nil {
		return err
	}
	return atomicfile.SyncDir(filepath.Dir(to))
}

// finishMerges ends the merges into the folder global that a crash cut
// short, and removes the temporary files of merged files it cut short
// while they were written (their old day files are still in dir, and are
// merged again).
func finishMerges(dir, global string) error {
	entries, err := os.ReadDir(global)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		day, ok := strings.CutSuffix(e.Name(), mergedSuffix)
		if !ok || !dayFile.MatchString(day) {
			continue
		}
		if err := finishMerge(filepath.Join(dir, day), filepath.Join(global, day)); err != nil {
			return fmt.Errorf("finishing the move of %s to the global scope: %w", day, err)
		}
	}
	for _, e := range entries {
		if dayFile.MatchString(e.Name()) {
			for _, tmp := range atomicfile.Stale(filepath.Join(global, e.Name()+mergedSuffix)) {
				os.Remove(tmp)
			}
		}
	}
	return nil
}

// ScopeDir returns the name of s's folder: datadir.FileName(s) (every
// byte but lower-case ASCII letters, digits, '-' and '_' written %XX,
// capitals too, so scopes differing only by case stay apart on a disk
// that ignores case), and a long one cut short with a hash of the whole.
func ScopeDir(s scope.Scope) string {
	name := datadir.FileName(string(s))
	if len(name) > 120 {
		sum := sha256.Sum256([]byte(s))
		name = name[:80] + "~" + hex.EncodeToString(sum[:16])
	}
	return name
}

// Append adds evt to the day's file of v's scope, recording v's writer;
// a zero Timestamp means now (Unix milliseconds, as the rest of the
// store keeps time).
func (t *Text) Append(v scope.View, evt sdk.TextEvent) error {
	k, err := writes(v)
	if err != nil {
		return fmt.Errorf("text memory: %w %q", err, v.Write)
	}
	if evt.Timestamp == 0 {
		evt.Timestamp = time.Now().UnixMilli()
	}
	line, err := json.Marshal(TextEntry{TextEvent: evt, Scope: scope.Scope(k.Scope), Writer: k.Writer})
	if err != nil {
		return fmt.Errorf("text memory: %w", err)
	}
	if len(line) > MaxTextEvent {
		return fmt.Errorf("text memory: %w: %d bytes (content %d bytes); split it or store it as a document", ErrTextTooLarge, len(line), len(evt.Content))
	}
	day := time.UnixMilli(evt.Timestamp).Format("2006-01-02")
	dir := filepath.Join(t.dir, ScopeDir(scope.Scope(k.Scope)))
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("text memory: %w", err)
	}
	if err := appendWhole(filepath.Join(dir, day+".jsonl"), append(line, '\n')); err != nil {
		return fmt.Errorf("text memory: %w", err)
	}
	return nil
}

// appendWhole appends data (whole lines) to the file at path in one
// write, after a newline if the file ends in a line cut short, so that
// the cut line stays a line of its own, which readers skip.
func appendWhole(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err = f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
			data = append([]byte{'\n'}, data...)
		}
	}
	if err == nil {
		_, err = f.Write(data)
	}
	return errors.Join(err, f.Close())
}

// Days returns the days (YYYY-MM-DD) that have lines in a scope v reads,
// oldest first.
func (t *Text) Days(v scope.View) ([]string, error) {
	dirs, err := t.dirs(v)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("text memory: %w", err)
		}
		for _, e := range entries {
			if dayFile.MatchString(e.Name()) {
				seen[e.Name()[:10]] = true
			}
		}
	}
	days := make([]string, 0, len(seen))
	for d := range seen {
		days = append(days, d)
	}
	sort.Strings(days)
	return days, nil
}

// dirs returns the folders of the scopes v reads.
func (t *Text) dirs(v scope.View) ([]string, error) {
	if !v.AllScopes {
		var out []string
		for _, s := range v.Read {
			out = append(out, filepath.Join(t.dir, ScopeDir(s)))
		}
		return out, nil
	}
	entries, err := os.ReadDir(t.dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("text memory: %w", err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join(t.dir, e.Name()))
		}
	}
	return out, nil
}

// Read returns the lines of day (YYYY-MM-DD) v sees, in the order of the
// scopes' folders and, within one, as written. A line cut short (the
// last one of a file a crash cut, or one written over) is skipped.
func (t *Text) Read(v scope.View, day string) ([]TextEntry, error) {
	if !dayFile.MatchString(day + ".jsonl") {
		return nil, fmt.Errorf("text memory: %q is not a day (YYYY-MM-DD)", day)
	}
	dirs, err := t.dirs(v)
	if err != nil {
		return nil, err
	}
	var out []TextEntry
	for _, d := range dirs {
		f, err := os.Open(filepath.Join(d, day+".jsonl"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("text memory: %w", err)
		}
		out, err = readLines(f, v, out)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("text memory: %w", err)
		}
	}
	return out, nil
}

// readLines appends the whole lines of r that v sees to out.
func readLines(r io.Reader, v scope.View, out []TextEntry) ([]TextEntry, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return out, err
	}
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break // the last line, cut short
		}
		line := data[:i]
		data = data[i+1:]
		var e TextEntry
		if json.Unmarshal(line, &e) != nil {
			continue // cut short, and written after
		}
		if e.Scope == "" {
			e.Scope = scope.Global // written before scopes
		}
		if v.Sees(e.Writer, e.Scope) {
			out = append(out, e)
		}
	}
	return out, nil
}
