package kernel

import (
	"fmt"
	"strings"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/sdk"
)

// Limits on the images of one injected input (sdk.Injection.Media).
// Images beyond them are not sent, and the message says so.
const (
	maxInputImages  = 4
	maxImageURLLen  = 2048    // an http(s) URL
	maxImageDataURL = 7 << 20 // a data: URL: 5 MiB of image, base64 encoded
)

// Notes added to an injected input's text (the stored text too, so that
// later turns know what the model saw).
const (
	noteNoVision = "[Hearth: this model cannot see images; the images of this message were not shown to it.]"
	noteNoAudio  = "[Hearth: audio is not passed to models; the model did not hear the audio of this message.]"
)

// inputImages returns the images of in's media that the model gets as
// image parts of the user message, and adds to user's text a note for
// any it does not get: every image when the model does not accept images,
// images beyond the limits, and audio, which Hearth's provider layer
// cannot send (it speaks OpenAI's chat completions with text and
// image_url parts only). URLs are passed as given: Hearth never fetches
// them.
func (k *Kernel) inputImages(user *llm.Message, media []sdk.ContentBlock) []llm.Image {
	var images []llm.Image
	var dropped []string
	audio := false
	accepts := false
	if a, ok := k.provider.(imageAccepter); ok {
		accepts = a.AcceptsImages()
	}
	n := 0
	for _, b := range media {
		switch {
		case b.ImageURL != nil:
			n++
			if !accepts {
				continue
			}
			url := strings.TrimSpace(b.ImageURL.URL)
			switch why := imageURLProblem(url); {
			case why != "":
				dropped = append(dropped, fmt.Sprintf("image %d %s", n, why))
			case len(images) == maxInputImages:
				dropped = append(dropped, fmt.Sprintf("image %d is over the limit of %d images per message", n, maxInputImages))
			default:
				images = append(images, llm.Image{URL: url})
			}
		case b.AudioURL != nil:
			audio = true
		}
	}
	var notes []string
	if n > 0 && !accepts {
		notes = append(notes, noteNoVision)
	}
	if len(dropped) > 0 {
		notes = append(notes, "[Hearth did not show the model: "+strings.Join(dropped, "; ")+".]")
	}
	if audio && k.cfg.Transcriber == nil { // else the text has its transcript or why not
		notes = append(notes, noteNoAudio)
	}
	if len(notes) > 0 {
		user.Content += "\n\n" + strings.Join(notes, "\n")
	}
	return images
}

// imageURLProblem says why url cannot be sent as an image, or "" when it
// can: an http(s) URL of at most maxImageURLLen bytes, or a base64 data:
// URL of an image/* type of at most maxImageDataURL bytes.
func imageURLProblem(url string) string {
	lower := strings.ToLower(url)
	switch {
	case strings.HasPrefix(lower, "https://") || strings.HasPrefix(lower, "http://"):
		if len(url) > maxImageURLLen {
			return fmt.Sprintf("has a URL of %d bytes, over the limit of %d", len(url), maxImageURLLen)
		}
		if strings.ContainsAny(url, " \t\r\n") {
			return "has a URL with spaces"
		}
		return ""
	case strings.HasPrefix(lower, "data:"):
		if len(url) > maxImageDataURL {
			return fmt.Sprintf("is %d bytes, over the limit of %d bytes (5 MiB of image)", len(url), maxImageDataURL)
		}
		head, _, ok := strings.Cut(url[len("data:"):], ",")
		mime, enc, _ := strings.Cut(head, ";")
		if !ok || enc != "base64" || !imageMIME(mime) {
			return "is a data: URL that is not a base64 image"
		}
		return ""
	default:
		return "has a URL that is neither http(s) nor data:"
	}
}

// imageMIME reports whether mime is image/<subtype>, the subtype of
// letters, digits and + - . only.
func imageMIME(mime string) bool {
	sub, ok := strings.CutPrefix(strings.ToLower(mime), "image/")
	if !ok || sub == "" || len(sub) > 64 {
		return false
	}
	for _, c := range sub {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// withImages returns m carrying images, for this turn's requests only: the
// stored and remembered message is m without them (see imageMessage).
func withImages(m llm.Message, images []llm.Image) llm.Message {
	if len(images) > 0 {
		m.Images = images
	}
	return m
}

// reattachImages gives the input's images back to the user message a
// pre_action handler returned (ContextMsgs are text): the last user
// message whose text is still the input's. A handler that rewrote it
// sends the model its text alone.
func reattachImages(msgs []llm.Message, text string, images []llm.Image) []llm.Message {
	if len(images) == 0 {
		return msgs
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" && msgs[i].Content == text {
			msgs[i].Images = images
			break
		}
	}
	return msgs
}
