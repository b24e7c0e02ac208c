package sdk

import (
	"strings"
	"sync"
	"testing"
)

const pixel = "data:image/png;base64,iVBORw0KGgo="

// toolBlocksPlugin registers tools through New and returns their handlers.
func toolBlocksPlugin(t *testing.T) (*PluginSDK, map[string]ToolHandler) {
	t.Helper()
	handlers := map[string]ToolHandler{}
	s := New("p", nil, func(name string, _ ToolDef, h ToolHandler) error { handlers[name] = h; return nil }, nil, nil, nil)
	return s, handlers
}

// Calls running at once each get the blocks their own handler set, never
// another's, and a call that sets none reads as its plain value.
func TestSetToolBlocksPerCall(t *testing.T) {
	s, hs := toolBlocksPlugin(t)
	start, set := make(chan struct{}), sync.WaitGroup{}
	set.Add(2)
	for _, name := range []string{"a", "b"} {
		if err := s.RegisterTool(name, ToolDef{}, func(args map[string]any) (any, error) {
			<-start // both calls are running before either sets blocks
			s.SetToolBlocks([]ContentBlock{{Type: "image_url", ImageURL: &ImageURL{URL: "data:image/" + name + ";base64,AAAA"}}})
			set.Done()
			set.Wait()
			return name, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RegisterTool("none", ToolDef{}, func(map[string]any) (any, error) { return "none", nil }); err != nil {
		t.Fatal(err)
	}
	results := make(chan any, 2)
	for _, name := range []string{"a", "b"} {
		go func() { v, _ := hs[name](nil); results <- v }()
	}
	close(start)
	for range 2 {
		r, ok := (<-results).(imagesResult)
		if !ok || len(r.images) != 1 || r.images[0].MIMEType != "image/"+r.value.(string) {
			t.Fatalf("%#v", r)
		}
	}
	if v, _ := hs["none"](nil); v != "none" {
		t.Fatalf("%#v", v)
	}
}

// Blocks set outside any call are dropped; blocks set on another
// goroutine reach the one running call.
func TestSetToolBlocksOutsideCalls(t *testing.T) {
	s, hs := toolBlocksPlugin(t)
	s.SetToolBlocks([]ContentBlock{{Type: "image_url", ImageURL: &ImageURL{URL: pixel}}})
	if err := s.RegisterTool("worker", ToolDef{}, func(map[string]any) (any, error) {
		done := make(chan struct{})
		go func() {
			s.SetToolBlocks([]ContentBlock{{Type: "image_url", ImageURL: &ImageURL{URL: pixel}},
				{Type: "audio_url", AudioURL: &AudioURL{URL: "https://x.invalid/a.ogg"}}})
			close(done)
		}()
		<-done
		return "ok", nil
	}); err != nil {
		t.Fatal(err)
	}
	v, _ := hs["worker"](nil)
	r, ok := v.(imagesResult)
	if !ok || len(r.images) != 1 || r.images[0].MIMEType != "image/png" || !strings.Contains(r.note, "[audio: https://x.invalid/a.ogg]") {
		t.Fatalf("%#v", v)
	}
}

func TestWithImages(t *testing.T) {
	if v := WithImages("x", nil); v != "x" {
		t.Fatalf("%#v", v)
	}
	inner := WithImages("x", []Image{{MIMEType: "image/png", Data: []byte{1}}})
	outer := WithImages(inner, []Image{{MIMEType: "image/gif", Data: []byte{2}}}).(ImageResult)
	if got := outer.ResultImages(); len(got) != 2 || got[0].MIMEType != "image/png" || got[1].MIMEType != "image/gif" {
		t.Fatalf("%#v", got)
	}
}

func FuzzDecodeDataImage(f *testing.F) {
	for _, s := range []string{pixel, "data:image/png,xx", "data:text/plain;base64,AAAA", "https://x", "data:image/png;base64,!!"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, url string) {
		im, ok := decodeDataImage(url)
		if ok && (len(im.Data) == 0 || !strings.HasPrefix(im.MIMEType, "image/")) {
			t.Fatalf("%q -> %#v", url, im)
		}
	})
}
