package pluginhost

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/hearth-agent/hearth/sdk/wire"
)

// progressRoutes routes a child plugin's "tool.progress" notifications to
// the running calls they are about. Each call that wants progress gets a
// token of its own for as long as it runs: model call ids are neither
// unique across sessions nor always present, so they cannot route.
type progressRoutes struct {
	mu    sync.Mutex
	next  int64
	calls map[int64]func(done, total float64, message string)
}

// add registers report for a call about to be sent and returns its token,
// and remove, which the call runs when it returns.
func (r *progressRoutes) add(report func(done, total float64, message string)) (token int64, remove func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls == nil {
		r.calls = map[int64]func(float64, float64, string){}
	}
	r.next++
	token = r.next
	r.calls[token] = report
	return token, func() {
		r.mu.Lock()
		delete(r.calls, token)
		r.mu.Unlock()
	}
}

// notify handles one "tool.progress" notification; one for a call that
// has returned, or a token never given, is dropped.
func (r *progressRoutes) notify(_ context.Context, raw json.RawMessage) (any, error) {
	var p wire.ToolProgressParams
	if err := wire.DecodeParams(raw, &p); err != nil {
		return nil, err
	}
	r.mu.Lock()
	report := r.calls[p.Token]
	r.mu.Unlock()
	if report != nil {
		report(p.Done, p.Total, p.Message)
	}
	return nil, nil
}
