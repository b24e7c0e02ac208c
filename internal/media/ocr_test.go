package media

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// pagePNG draws a white page of w×h with a black bar, a real PNG.
func pagePNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := uint8(255)
			if y > h/3 && y < h/3+4 && x > 4 && x < w-4 {
				c = 0
			}
			img.SetGray(x, y, color.Gray{Y: c})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// visionServer is a loopback chat completions server: it decodes the
// page image of each request for real and answers with the text scripted
// for its width (failWidth answers 500).
func visionServer(t *testing.T, texts map[int]string, failWidth int) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Content []struct {
					Type     string `json:"type"`
					ImageURL *struct {
						URL string `json:"url"`
					} `json:"image_url"`
				} `json:"content"`
			} `json:"messages"`
		}
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+testKey ||
			json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "vision-1" || len(req.Messages) != 1 {
			http.Error(w, `{"error":{"message":"bad request"}}`, 400)
			return
		}
		var img image.Image
		for _, c := range req.Messages[0].Content {
			if c.ImageURL == nil {
				continue
			}
			data, ok := strings.CutPrefix(c.ImageURL.URL, "data:image/png;base64,")
			raw, err := base64.StdEncoding.DecodeString(data)
			if !ok || err != nil {
				http.Error(w, `{"error":{"message":"not a PNG data URL"}}`, 400)
				return
			}
			if img, err = png.Decode(bytes.NewReader(raw)); err != nil {
				http.Error(w, `{"error":{"message":"PNG does not decode"}}`, 400)
				return
			}
		}
		if img == nil {
			http.Error(w, `{"error":{"message":"no image"}}`, 400)
			return
		}
		width := img.Bounds().Dx()
		if width == failWidth {
			http.Error(w, `{"error":{"message":"model overloaded"}}`, 500)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": texts[width]}}}})
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func TestVisionOCRPages(t *testing.T) {
	base := visionServer(t, map[int]string{120: "# Invoice\n\nTotal: 42 EUR\n", 90: "Paid on 1 May."}, 0)
	o, err := NewVisionOCR(OCRConfig{BaseURL: base, APIKey: testKey, Model: "vision-1"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := o.Recognize(context.Background(), Document{Name: "scan", Pages: [][]byte{pagePNG(t, 120, 160), pagePNG(t, 90, 120)}})
	if err != nil {
		t.Fatal(err)
	}
	want := "## Page 1\n\n# Invoice\n\nTotal: 42 EUR\n\n## Page 2\n\nPaid on 1 May."
	if got != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", got, want)
	}
}

func TestVisionOCRFailures(t *testing.T) {
	ctx := context.Background()
	base := visionServer(t, map[int]string{120: "one"}, 91)
	o, _ := NewVisionOCR(OCRConfig{BaseURL: base, APIKey: testKey, Model: "vision-1", MaxPages: 2})
	pg := pagePNG(t, 120, 160)
	for _, tc := range []struct {
		name  string
		pages [][]byte
		is    error
		text  string
	}{
		{"pdf", [][]byte{[]byte("%PDF-1.7\n...")}, ErrPDFNeedsPages, "page 1"},
		{"not an image", [][]byte{pg, []byte("hello")}, ErrNotImage, "page 2"},
		{"no pages", nil, ErrNoPages, ""},
		{"too many", [][]byte{pg, pg, pg}, ErrTooManyPages, ""},
		{"server fails on page 2", [][]byte{pg, pagePNG(t, 91, 100)}, nil, "page 2: 500: model overloaded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := o.Recognize(ctx, Document{Pages: tc.pages})
			if err == nil || tc.is != nil && !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("err %v, want %v containing %q", err, tc.is, tc.text)
			}
		})
	}
	wrong := "sk-wrong-key-9876543210"
	o2, _ := NewVisionOCR(OCRConfig{BaseURL: base, APIKey: wrong, Model: "vision-1"})
	_, err := o2.Recognize(ctx, Document{Pages: [][]byte{pg}})
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 400 || strings.Contains(fmt.Sprint(err), wrong) {
		t.Errorf("err %v, want a 400 without the key", err)
	}
}
