package kernel

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/media"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// TestImagesReadByOCR sends a text-only model an input with two real PNG
// pages: a media.VisionOCR against a loopback vision server (which
// decodes each PNG and answers by its width) reads them, and the model
// gets their Markdown under "## Page n" headings. A model that sees
// images gets no OCR.
func TestImagesReadByOCR(t *testing.T) {
	vision := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Content []struct {
					ImageURL *struct{ URL string } `json:"image_url"`
				} `json:"content"`
			} `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		for _, c := range req.Messages[0].Content {
			if c.ImageURL == nil {
				continue
			}
			raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(c.ImageURL.URL, "data:image/png;base64,"))
			img, err := png.Decode(bytes.NewReader(raw))
			if err != nil {
				http.Error(w, `{"error":{"message":"not a PNG"}}`, 400)
				return
			}
			text := map[int]string{40: "Invoice 17", 30: "Total: 42 EUR"}[img.Bounds().Dx()]
			json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": text}}}})
			return
		}
		http.Error(w, `{"error":{"message":"no image"}}`, 400)
	}))
	defer vision.Close()
	ocr, err := media.NewVisionOCR(media.OCRConfig{BaseURL: vision.URL + "/v1", Model: "vision"})
	if err != nil {
		t.Fatal(err)
	}
	page := func(w int) string {
		var b bytes.Buffer
		png.Encode(&b, image.NewGray(image.Rect(0, 0, w, 20)))
		return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
	}
	in := sdk.Injection{Channel: "test", Text: "file this", Media: []sdk.ContentBlock{
		{Type: "image_url", ImageURL: &sdk.ImageURL{URL: page(40)}},
		{Type: "image_url", ImageURL: &sdk.ImageURL{URL: page(30)}},
	}}
	for _, sees := range []bool{false, true} {
		srv := llmtest.NewServer(t, llmtest.Reply{Text: "ok"})
		k := New(seeing{&llm.Client{BaseURL: srv.URL, Model: "test", Backoff: time.Millisecond}, sees}, nil,
			&Options{Logger: slog.New(slog.DiscardHandler), Recognizer: ocr})
		if out := k.Ask(context.Background(), Input{Injection: in}); out.Err != nil {
			t.Fatal(out.Err)
		}
		k.Close()
		msgs := srv.Requests()[0].Messages
		b, _ := json.Marshal(msgs[len(msgs)-1]["content"])
		got := string(b)
		want := `## Page 1\n\nInvoice 17\n\n## Page 2\n\nTotal: 42 EUR`
		if sees == strings.Contains(got, want) {
			t.Errorf("model sees images %v: message %s", sees, got)
		}
	}
}
