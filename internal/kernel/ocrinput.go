package kernel

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/hearth-agent/hearth/internal/media"
)

// readImages gives a model that cannot see images the text of an input's
// images (scanned pages, photos of documents): with Options.Recognizer
// set, the images sent as base64 data: URLs are read as the pages of one
// document and its Markdown ("## Page n" per image, in order) is
// appended to in.Text, marked as OCR, before the turn starts. A model
// that accepts images gets the images themselves and nothing is read.
// Hearth never fetches URLs, so images given by URL are not read.
func (k *Kernel) readImages(ctx context.Context, in *Input) {
	if k.cfg.Recognizer == nil {
		return
	}
	if a, ok := k.provider.(imageAccepter); ok && a.AcceptsImages() {
		return
	}
	var pages [][]byte
	for _, b := range in.Media {
		if b.ImageURL == nil {
			continue
		}
		url := strings.TrimSpace(b.ImageURL.URL)
		if !strings.HasPrefix(strings.ToLower(url), "data:") || imageURLProblem(url) != "" {
			continue
		}
		_, data, _ := strings.Cut(url, ",")
		raw, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			continue
		}
		pages = append(pages, raw)
	}
	if len(pages) == 0 {
		return
	}
	var note string
	md, err := k.cfg.Recognizer.Recognize(ctx, media.Document{Name: "images", Pages: pages})
	if err != nil {
		k.log.Warn("images not read", "channel", in.Channel, "err", err)
		note = fmt.Sprintf("[Hearth could not read the text of this message's images: %v]", err)
	} else {
		note = "[Text of this message's images, read by OCR, one page per image:]\n" + md
	}
	if in.Text != "" {
		in.Text += "\n\n"
	}
	in.Text += note
}
