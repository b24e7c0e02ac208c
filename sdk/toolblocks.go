package sdk

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"

	"github.com/hearth-agent/hearth/internal/goid"
)

// WithImages returns a tool result that reads as v (its text, JSON, error
// flag and metadata are v's) and carries images besides (ImageResult),
// after any v carries itself. The host passes them to a model that
// accepts images, within its limits, as it does any ImageResult's.
func WithImages(v any, images []Image) any {
	if len(images) == 0 {
		return v
	}
	return imagesResult{value: v, images: images}
}

// imagesResult is WithImages's value. The host encodes ResultValue in
// its place (sdk/toolcall) and adds ResultImages.
type imagesResult struct {
	value  any
	images []Image
	note   string // added to the result's text (SetToolBlocks's blocks it could not pass)
}

// ResultNote returns the line the host adds to the result's text.
func (r imagesResult) ResultNote() string { return r.note }

// ResultValue returns the value the result reads as.
func (r imagesResult) ResultValue() any { return r.value }

// ResultImages returns the inner value's images, then the added ones.
func (r imagesResult) ResultImages() []Image {
	var out []Image
	if ir, ok := r.value.(ImageResult); ok {
		out = append(out, ir.ResultImages()...)
	}
	return append(out, r.images...)
}

// toolBlocks binds HomeAgent's SetToolBlocks, which names no call, to
// the tool call it is made in: the call whose handler runs on the calling
// goroutine (a HomeAgent handler runs on one), or else the plugin's one
// running call. With neither, the blocks cannot be bound to a call and
// are dropped with a warning: they must never reach another call's
// result.
type toolBlocks struct {
	mu      sync.Mutex
	running map[*blockSlot]struct{}
}

// blockSlot holds the blocks set during one call.
type blockSlot struct {
	goroutine uint64 // the goroutine running the handler
	blocks    []ContentBlock
}

// begin records a call running on this goroutine; end removes it and
// returns the blocks set during it.
func (t *toolBlocks) begin() *blockSlot {
	slot := &blockSlot{goroutine: goid.ID()}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.running == nil {
		t.running = map[*blockSlot]struct{}{}
	}
	t.running[slot] = struct{}{}
	return slot
}

func (t *toolBlocks) end(slot *blockSlot) []ContentBlock {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.running, slot)
	return slot.blocks
}

// set adds blocks to the call running on this goroutine, or else to the
// one running call; it reports false when there is no such call (the
// blocks are then dropped).
func (t *toolBlocks) set(blocks []ContentBlock) bool {
	g := goid.ID()
	t.mu.Lock()
	defer t.mu.Unlock()
	var only, mine *blockSlot
	for slot := range t.running {
		only = slot
		if slot.goroutine == g && g != 0 {
			if mine != nil {
				return false // nested calls on one goroutine: not telling which
			}
			mine = slot
		}
	}
	switch {
	case mine != nil:
		mine.blocks = append(mine.blocks, blocks...)
	case len(t.running) == 1:
		only.blocks = append(only.blocks, blocks...)
	default:
		return false
	}
	return true
}

// withToolBlocks wraps h so that blocks SetToolBlocks sets during a call
// join that call's result as images (see blockImages).
func (s *PluginSDK) withToolBlocks(h RawToolHandler) RawToolHandler {
	return func(ctx context.Context, tc *ToolContext, args map[string]any, raw json.RawMessage) (any, error) {
		slot := s.blocks.begin()
		v, err := h(ctx, tc, args, raw)
		blocks := s.blocks.end(slot)
		if err != nil || len(blocks) == 0 {
			return v, err
		}
		images, note := blockImages(blocks)
		return imagesResult{value: v, images: images, note: note}, nil
	}
}

// SetToolBlocks is HomeAgent's way for a tool to show the model images in
// its result: called by a tool handler while it runs, the image blocks
// join that call's result as images (as an ImageResult's do), which a
// model that accepts images sees: a base64 data: URL decoded, an http(s)
// URL as given (Image.URL). Another URL or an audio block is named in the
// result's text instead. The call is the one whose handler runs on the
// calling goroutine, or else the plugin's only running call; with
// neither (outside any call, or on a goroutine of its own while several
// calls run) the blocks are dropped with a warning. ImageResult and
// WithImages have no such limit.
func (s *PluginSDK) SetToolBlocks(blocks []ContentBlock) {
	if len(blocks) == 0 {
		return
	}
	if !s.blocks.set(blocks) {
		s.Logger().Warn("SetToolBlocks outside the plugin's tool calls, or on another goroutine while several run; blocks dropped", "blocks", len(blocks))
	}
}

// blockImages turns the image blocks into images (a base64 data: URL of
// an image/* type decoded, an http(s) URL kept as Image.URL), and returns
// a note naming the blocks it could not pass on.
func blockImages(blocks []ContentBlock) ([]Image, string) {
	var images []Image
	var lines []string
	for _, b := range blocks {
		switch {
		case b.ImageURL != nil:
			url := strings.TrimSpace(b.ImageURL.URL)
			if im, ok := decodeDataImage(url); ok {
				images = append(images, im)
				continue
			}
			if lower := strings.ToLower(url); strings.HasPrefix(lower, "https://") || strings.HasPrefix(lower, "http://") {
				images = append(images, Image{URL: url}) // the host checks it (toolcall)
				continue
			}
			lines = append(lines, mediaLine("image", url)+" (not shown: not an http(s) or base64 data: image URL)")
		case b.AudioURL != nil:
			lines = append(lines, mediaLine("audio", b.AudioURL.URL)+" (not passed: Hearth sends models no audio)")
		case b.Type == "text" && b.Text != "":
			lines = append(lines, b.Text)
		}
	}
	return images, strings.Join(lines, "\n")
}

// decodeDataImage decodes "data:image/<sub>;base64,<data>".
func decodeDataImage(url string) (Image, bool) {
	rest, ok := strings.CutPrefix(url, "data:")
	if !ok {
		return Image{}, false
	}
	head, data, ok := strings.Cut(rest, ",")
	mime, enc, _ := strings.Cut(head, ";")
	if !ok || enc != "base64" || !strings.HasPrefix(mime, "image/") {
		return Image{}, false
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil || len(b) == 0 {
		return Image{}, false
	}
	return Image{MIMEType: mime, Data: b}, true
}
