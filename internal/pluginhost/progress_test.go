package pluginhost

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// TestChildPluginProgress checks that a child plugin's tc.Progress reaches
// the call's own Progress, in order and before its result, over the
// "tool.progress" notification; and that a call nobody watches gets no
// Progress at all.
func TestChildPluginProgress(t *testing.T) {
	f := newFixture(t)
	p := f.start(t, "child", "ok")
	ready(t, p)
	tool, ok := f.k.Tools().Lookup("child__progress")
	if !ok {
		t.Fatal("child__progress not registered")
	}
	var mu sync.Mutex
	var got []string
	tc := &sdk.ToolContext{Actor: sdk.ActorAgent, Progress: func(done, total float64, message string) {
		mu.Lock()
		got = append(got, fmt.Sprintf("%g/%g %s", done, total, message))
		mu.Unlock()
	}}
	r := tool.Call(context.Background(), tc, json.RawMessage(`{}`))
	if r.IsError || r.Content != "reported" {
		t.Fatalf("result %+v", r)
	}
	mu.Lock()
	want := []string{"1/3 step 1", "2/3 step 2", "3/3 step 3"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("progress %q, want %q", got, want)
	}
	mu.Unlock()
	if content, _ := f.call("child__progress", `{}`); content != "no progress" {
		t.Errorf("a call without Progress: %q", content)
	}
}

func TestProgressRoutesDropUnknownAndEnded(t *testing.T) {
	var r progressRoutes
	calls := 0
	token, remove := r.add(func(float64, float64, string) { calls++ })
	send := func(token int64) {
		if _, err := r.notify(context.Background(), json.RawMessage(fmt.Sprintf(`{"token":%d,"done":1}`, token))); err != nil {
			t.Fatal(err)
		}
	}
	send(token)
	send(token + 1) // never given
	remove()
	send(token) // the call returned
	if calls != 1 {
		t.Errorf("%d reports routed, want 1", calls)
	}
	if _, err := r.notify(context.Background(), json.RawMessage(`{"token":"x"}`)); err == nil {
		t.Error("malformed params accepted")
	}
}

func FuzzProgressNotification(f *testing.F) {
	f.Add([]byte(`{"token":1,"done":2,"total":3,"message":"m"}`))
	f.Add([]byte(`{"token":1,"done":1e309}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var r progressRoutes
		_, remove := r.add(func(float64, float64, string) {})
		defer remove()
		_, _ = r.notify(context.Background(), b) // never panics
	})
}

// TestChildPluginProgressInATurn runs a child plugin's tool in a turn: its
// reports reach the channel as EventToolProgress, before the call's end.
func TestChildPluginProgressInATurn(t *testing.T) {
	f := newFixture(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c1", Name: "child__progress", Arguments: `{}`}}},
		llmtest.Reply{Text: "done"})
	p := f.start(t, "child", "ok")
	ready(t, p)
	var kinds []string
	var last kernel.Event
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := f.k.Ask(ctx, kernel.Input{Injection: sdk.Injection{Channel: "test", Text: "go"}, OnEvent: func(ev kernel.Event) {
		switch ev.Kind {
		case kernel.EventToolStart:
			kinds = append(kinds, "start")
		case kernel.EventToolProgress:
			kinds = append(kinds, "progress")
			last = ev
		case kernel.EventToolEnd:
			kinds = append(kinds, "end")
		}
	}})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	// The first report goes at once; the other two may come within the
	// throttle's interval (then only the latest shows) or not: 2 or 3
	// reports, whatever the machine's speed, the latest always 3/3.
	if len(kinds) < 4 || kinds[0] != "start" || kinds[1] != "progress" || kinds[len(kinds)-1] != "end" {
		t.Fatalf("events %v", kinds)
	}
	if last.CallID != "c1" || last.Tool != "child__progress" || last.Done != 3 || last.Total != 3 || last.Text != "step 3" {
		t.Errorf("the latest report %+v, want 3/3 step 3", last)
	}
}
