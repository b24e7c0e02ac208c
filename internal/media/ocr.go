package media

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Defaults of OCRConfig's zero fields.
const (
	DefaultOCRTimeout   = 2 * time.Minute // one page
	DefaultMaxPageBytes = 10 << 20
	DefaultMaxPages     = 50
)

// OCR errors callers branch on.
var (
	// ErrPDFNeedsPages is returned for a PDF: Hearth has no PDF renderer,
	// so a scanned PDF must be given as one image per page.
	ErrPDFNeedsPages = errors.New("a PDF must be given as page images: Hearth cannot render PDF pages")
	// ErrNotImage is returned for a page that is not a PNG, JPEG, GIF or
	// WebP image.
	ErrNotImage = errors.New("not a PNG, JPEG, GIF or WebP image")
	// ErrNoPages is returned for a document without pages.
	ErrNoPages = errors.New("no pages")
	// ErrTooManyPages is returned for a document over OCRConfig.MaxPages.
	ErrTooManyPages = errors.New("too many pages")
)

// Recognizer reads a document's text as Markdown, each page under a
// "## Page n" heading (n from 1), in reading order.
type Recognizer interface {
	Recognize(ctx context.Context, doc Document) (string, error)
}

// Document is a scanned document: its pages as images.
type Document struct {
	Name  string
	Pages [][]byte
}

// OCRConfig is an OpenAI-compatible chat completions endpoint whose model
// reads images.
type OCRConfig struct {
	BaseURL string
	APIKey  string
	Model   string
	// Prompt replaces the default instruction sent with each page.
	Prompt string
	// MaxPages caps a document's pages (DefaultMaxPages when 0);
	// MaxPageBytes one page's image (DefaultMaxPageBytes when 0).
	MaxPages     int
	MaxPageBytes int
	// Timeout caps one page's request (DefaultOCRTimeout when 0).
	Timeout time.Duration
	Client  *http.Client
}

// VisionOCR is a Recognizer that shows each page to a vision model and
// asks for its text as Markdown.
type VisionOCR struct{ cfg OCRConfig }

var _ Recognizer = (*VisionOCR)(nil)

const defaultOCRPrompt = "Transcribe all the text of this scanned page as Markdown, in reading order. " +
	"Keep headings, lists and tables. Output only the page's text, with no comments and no heading of your own."

// NewVisionOCR returns a recognizer for cfg.
func NewVisionOCR(cfg OCRConfig) (*VisionOCR, error) {
	cfg.BaseURL = strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	if cfg.BaseURL == "" {
		return nil, fmt.Errorf("ocr: %w", ErrNoBaseURL)
	}
	if !strings.HasPrefix(cfg.BaseURL, "http://") && !strings.HasPrefix(cfg.BaseURL, "https://") {
		return nil, fmt.Errorf("ocr: base URL %q is not http(s)", cfg.BaseURL)
	}
	if cfg.Model == "" {
		return nil, errors.New("ocr: no model")
	}
	if cfg.Prompt == "" {
		cfg.Prompt = defaultOCRPrompt
	}
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = DefaultMaxPages
	}
	if cfg.MaxPageBytes <= 0 {
		cfg.MaxPageBytes = DefaultMaxPageBytes
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultOCRTimeout
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{}
	}
	return &VisionOCR{cfg: cfg}, nil
}

// Recognize checks every page, then reads them one request each, in
// order. A page that fails fails the document, naming the page.
func (o *VisionOCR) Recognize(ctx context.Context, doc Document) (string, error) {
	if len(doc.Pages) == 0 {
		return "", fmt.Errorf("ocr: %w", ErrNoPages)
	}
	if len(doc.Pages) > o.cfg.MaxPages {
		return "", fmt.Errorf("ocr: %w: %d, limit %d", ErrTooManyPages, len(doc.Pages), o.cfg.MaxPages)
	}
	mimes := make([]string, len(doc.Pages))
	for i, p := range doc.Pages {
		mime, err := PageMIME(p)
		if err != nil {
			return "", fmt.Errorf("ocr: page %d: %w", i+1, err)
		}
		if len(p) > o.cfg.MaxPageBytes {
			return "", fmt.Errorf("ocr: page %d is %d bytes, over the limit of %d", i+1, len(p), o.cfg.MaxPageBytes)
		}
		mimes[i] = mime
	}
	var b strings.Builder
	for i, p := range doc.Pages {
		text, err := o.page(ctx, p, mimes[i])
		if err != nil {
			return "", fmt.Errorf("ocr: page %d: %w", i+1, err)
		}
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "## Page %d\n\n%s", i+1, strings.TrimSpace(text))
	}
	return b.String(), nil
}

func (o *VisionOCR) page(ctx context.Context, img []byte, mime string) (string, error) {
	type imageURL struct {
		URL string `json:"url"`
	}
	type part struct {
		Type     string    `json:"type"`
		Text     string    `json:"text,omitempty"`
		ImageURL *imageURL `json:"image_url,omitempty"`
	}
	body, err := json.Marshal(map[string]any{
		"model": o.cfg.Model,
		"messages": []map[string]any{{"role": "user", "content": []part{
			{Type: "text", Text: o.cfg.Prompt},
			{Type: "image_url", ImageURL: &imageURL{URL: "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(img)}},
		}}},
	})
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, o.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.cfg.BaseURL+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	if o.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.cfg.APIKey)
	}
	resp, err := o.cfg.Client.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return "", fmt.Errorf("no answer within %s: %w", o.cfg.Timeout, ctx.Err())
		}
		return "", errors.New(maskKey(err.Error(), o.cfg.APIKey))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxTranscriptionBytes+1))
	if err != nil {
		return "", fmt.Errorf("reading the answer: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return "", &HTTPError{Status: resp.StatusCode, Message: maskKey(errorMessage(data), o.cfg.APIKey)}
	}
	var out struct {
		Choices []struct {
			Message struct {
				Content *string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(data, &out); err != nil || len(out.Choices) == 0 || out.Choices[0].Message.Content == nil {
		return "", fmt.Errorf("the answer has no message: %s", maskKey(snippet(data), o.cfg.APIKey))
	}
	return *out.Choices[0].Message.Content, nil
}

// PageMIME returns an image's type from its first bytes, ErrPDFNeedsPages
// for a PDF, or ErrNotImage.
func PageMIME(b []byte) (string, error) {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png", nil
	case bytes.HasPrefix(b, []byte("\xff\xd8\xff")):
		return "image/jpeg", nil
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "image/gif", nil
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp", nil
	case bytes.HasPrefix(b, []byte("%PDF-")):
		return "", ErrPDFNeedsPages
	}
	return "", ErrNotImage
}

// Key returns the API key, for a host to add to the secrets it masks.
func (o *VisionOCR) Key() string { return o.cfg.APIKey }
