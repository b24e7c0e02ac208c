package media

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxEventBytes caps one server-sent event's data.
const maxEventBytes = 1 << 20

// errNoDone is returned by readEvents for a stream that ends before fn
// says it is done.
var errNoDone = errors.New("the stream ended without transcript.text.done")

// readEvents reads server-sent events from r and calls fn with each
// event's data (its data: lines joined by newlines) until fn returns
// true or an error. Comments, other fields and "[DONE]" are skipped.
func readEvents(r io.Reader, fn func(data []byte) (bool, error)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxEventBytes)
	var data []byte
	flush := func() (bool, error) {
		if len(data) == 0 {
			return false, nil
		}
		d := data
		data = nil
		if bytes.Equal(bytes.TrimSpace(d), []byte("[DONE]")) {
			return false, nil
		}
		return fn(d)
	}
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if done, err := flush(); done || err != nil {
				return err
			}
			continue
		}
		v, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue // a comment, event:, id: or retry: line
		}
		v = bytes.TrimPrefix(v, []byte(" "))
		if len(data) > 0 {
			data = append(data, '\n')
		}
		data = append(data, v...)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading the stream: %w", err)
	}
	if done, err := flush(); done || err != nil {
		return err
	}
	return errNoDone
}
