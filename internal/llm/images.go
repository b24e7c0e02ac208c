package llm

import (
	"encoding/base64"
	"strings"
)

// Image is a picture carried by a user message (see Message.Images): a
// tool's image, or an image of a plugin's input, passed to a model that
// accepts images.
type Image struct {
	MIMEType string // image/png, image/jpeg, ...
	Data     []byte
	// URL, when set, is sent as given instead of Data: an http(s) or
	// data: URL a plugin's input carried (sdk.Injection.Media). Hearth
	// never fetches it; the provider does.
	URL string
}

// DataURL returns the image as a data: URL, the form the OpenAI wire
// takes it in, or its URL when it has one.
func (im Image) DataURL() string {
	if im.URL != "" {
		return im.URL
	}
	return "data:" + im.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(im.Data)
}

// visionModels are the parts of model names known to accept images, for a
// source whose config does not say ("images" in config.json). A name
// matches when it contains one of them, case folded, with any
// "provider/" prefix removed. The list is short on purpose: a model it
// misses gets the tool's text alone, which still describes the image.
var visionModels = []string{
	"gpt-4o", "gpt-4.1", "gpt-5", // OpenAI
	"claude", "gemini", // Anthropic, Google (through OpenAI-compatible gateways)
	"qwen-vl", "qwen2-vl", "qwen2.5-vl", "qwen3-vl", "qvq", // Qwen
	"glm-4v", "glm-4.1v", "glm-4.5v", // Zhipu GLM
	"kimi-vl", "-vision", "llava", "pixtral", "minicpm-v", "internvl",
}

// ModelAcceptsImages reports whether model is one Hearth knows to accept
// images in its input (see visionModels).
func ModelAcceptsImages(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	for _, v := range visionModels {
		if strings.Contains(m, v) {
			return true
		}
	}
	return false
}

// AcceptsImages reports whether the source's model accepts images: what
// its config says (Images), or else whether its model is a known vision
// model.
func (s Source) AcceptsImages() bool {
	if s.Images != nil {
		return *s.Images
	}
	return ModelAcceptsImages(s.Model)
}

// AcceptsImages reports whether the current source's model accepts
// images; false when there is no current source.
func (s *Sources) AcceptsImages() bool {
	src, ok := s.Current()
	return ok && src.AcceptsImages()
}

// contentPart is one part of a message's content in the OpenAI wire
// format, for a message that carries images.
type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

// contentParts returns the text and images as content parts: the text
// first (when there is any), then each image as a data URL.
func contentParts(text string, images []Image) []contentPart {
	parts := make([]contentPart, 0, len(images)+1)
	if text != "" {
		parts = append(parts, contentPart{Type: "text", Text: text})
	}
	for _, im := range images {
		parts = append(parts, contentPart{Type: "image_url", ImageURL: &imageURL{URL: im.DataURL()}})
	}
	return parts
}
