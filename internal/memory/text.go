package memory

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/sdk"
)

// Text is the text memory: the raw conversation log, one JSON line per
// event, in one file a day (<dir>/YYYY-MM-DD.jsonl, local time), so old
// days can be archived or deleted as files. It implements
// sdk.TextMemoryAPI.
type Text struct {
	dir string
	mu  sync.Mutex
}

var _ sdk.TextMemoryAPI = (*Text)(nil)

// NewText returns the text memory kept in dir.
func NewText(dir string) *Text { return &Text{dir: dir} }

// Append adds evt to the day's file; a zero Timestamp means now (Unix
// milliseconds, as the rest of the store keeps time).
func (t *Text) Append(evt sdk.TextEvent) error {
	if evt.Timestamp == 0 {
		evt.Timestamp = time.Now().UnixMilli()
	}
	line, err := json.Marshal(evt)
	if err != nil {
		return err
	}
	day := time.UnixMilli(evt.Timestamp).Format("2006-01-02")
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := os.MkdirAll(t.dir, 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(t.dir, day+".jsonl"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("text memory: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("text memory: %w", err)
	}
	return f.Close()
}
