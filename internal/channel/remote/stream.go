package remote

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// ErrStreamLost is the cause when an event stream broke and could not be
// resumed.
var ErrStreamLost = fmt.Errorf("lost the daemon's event stream / 与后台服务的事件流已断开")

// item is one event of a stream, or why the stream ended, or (resumed)
// the news that it broke and was opened again: events in between may be
// lost, since the daemon keeps none to replay.
type item struct {
	ev      sseEvent
	err     error
	resumed bool
}

// subscribe opens the event stream at path; lastID, when set, asks the
// server to resume after that event.
func (a *Agent) subscribe(ctx context.Context, path, lastID string) (*http.Response, error) {
	req, err := a.request(ctx, http.MethodGet, path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		return nil, a.transportError(ctx, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, readAPIError(resp)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		resp.Body.Close()
		return nil, fmt.Errorf("%s: not an event stream (%q)", path, ct)
	}
	return resp, nil
}

// follow sends the events of resp, the stream at path, to out until ctx
// ends or the stream does. A stream that breaks is opened again once,
// with Last-Event-ID when the server gave ids (a server that keeps no
// history starts again from now; the events in between are lost, which a
// turn notices by its end not coming and the POST answering). If that
// fails too, the last item carries an error wrapping ErrStreamLost. out is
// closed at the end. peek, if set, sees each event as soon as it is read.
func (a *Agent) follow(ctx context.Context, path string, resp *http.Response, out chan<- item, peek func(sseEvent)) {
	defer close(out)
	r := newSSEReader(resp.Body)
	retried := false
	for {
		ev, err := r.next()
		if err == nil && !ev.Own && ev.Event == evError {
			// The daemon's notice that it is closing this stream.
			w, _ := decodeEvent(ev)
			err = fmt.Errorf("the daemon ended the stream: %s", w.Message)
		}
		if err == nil {
			if peek != nil {
				peek(ev)
			}
			select {
			case out <- item{ev: ev}:
				continue
			case <-ctx.Done():
				resp.Body.Close()
				return
			}
		}
		resp.Body.Close()
		if ctx.Err() != nil {
			return
		}
		if !retried && r.lastID != "" {
			retried = true
			next, rerr := a.subscribe(ctx, path, r.lastID)
			if rerr == nil {
				lastID := r.lastID
				resp = next
				r = newSSEReader(resp.Body)
				r.lastID = lastID
				select {
				case out <- item{resumed: true}:
					continue
				case <-ctx.Done():
					resp.Body.Close()
					return
				}
			}
			err = fmt.Errorf("%w; resuming: %w", err, rerr)
		}
		select {
		case out <- item{err: fmt.Errorf("%w: %w", ErrStreamLost, err)}:
		case <-ctx.Done():
		}
		return
	}
}
