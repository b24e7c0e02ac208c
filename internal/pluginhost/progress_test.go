package pluginhost

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
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
