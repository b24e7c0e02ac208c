// Package media turns what a model cannot read into text: speech into a
// transcript over the OpenAI-compatible POST /audio/transcriptions (whole
// or streamed as server-sent events), and scanned pages into Markdown
// with a "## Page n" heading per page over an OpenAI-compatible vision
// model. Keys never appear in its errors.
package media

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"time"
)

// Defaults of SpeechConfig's zero fields.
const (
	DefaultSpeechTimeout  = 2 * time.Minute
	DefaultMaxAudioBytes  = 25 << 20 // OpenAI's own limit on one file
	maxTranscriptionBytes = 4 << 20  // an answer's body
)

// Errors callers branch on.
var (
	// ErrAudioTooLarge is returned, before anything is sent, for audio
	// over SpeechConfig.MaxBytes.
	ErrAudioTooLarge = errors.New("audio is over the size limit")
	// ErrNoAudio is returned for empty audio.
	ErrNoAudio = errors.New("no audio")
	// ErrNoBaseURL is returned by a client without a base URL.
	ErrNoBaseURL = errors.New("no base URL")
)

// Transcriber turns audio into text.
type Transcriber interface {
	Transcribe(ctx context.Context, a Audio) (string, error)
}

// Audio is one recording to transcribe.
type Audio struct {
	Data []byte
	// Name is the file name sent in the multipart form ("audio.wav"
	// when empty); servers use its extension to tell the format.
	Name string
	// MIME is its type ("audio/wav" when empty).
	MIME string
}

// SpeechConfig is an OpenAI-compatible transcription endpoint.
type SpeechConfig struct {
	// BaseURL is the API root, e.g. https://api.openai.com/v1; requests go
	// to BaseURL + "/audio/transcriptions".
	BaseURL string
	// APIKey is sent as a bearer token; empty sends none (a local server).
	APIKey string
	// Model is the form's model field (e.g. whisper-1).
	Model string
	// Language is an ISO-639-1 hint; empty lets the server detect it.
	Language string
	// ResponseFormat is json (default), text or verbose_json.
	ResponseFormat string
	// Stream asks for the transcript as server-sent events
	// (transcript.text.delta ... transcript.text.done), as
	// gpt-4o-transcribe sends it.
	Stream bool
	// MaxBytes caps the audio sent (DefaultMaxAudioBytes when 0).
	MaxBytes int64
	// Timeout caps one transcription, upload included
	// (DefaultSpeechTimeout when 0).
	Timeout time.Duration
	// Client is the HTTP client; nil means one of its own.
	Client *http.Client
}

// Speech is a Transcriber over an OpenAI-compatible endpoint.
type Speech struct{ cfg SpeechConfig }

var _ Transcriber = (*Speech)(nil)

// NewSpeech returns a client for cfg, or an error naming what is wrong
// with it.
func NewSpeech(cfg SpeechConfig) (*Speech, error) {
	cfg.BaseURL = strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	if cfg.BaseURL == "" {
		return nil, fmt.Errorf("speech: %w", ErrNoBaseURL)
	}
	if !strings.HasPrefix(cfg.BaseURL, "http://") && !strings.HasPrefix(cfg.BaseURL, "https://") {
		return nil, fmt.Errorf("speech: base URL %q is not http(s)", cfg.BaseURL)
	}
	switch cfg.ResponseFormat {
	case "":
		cfg.ResponseFormat = "json"
	case "json", "text", "verbose_json":
	default:
		return nil, fmt.Errorf("speech: response format %q is not json, text or verbose_json", cfg.ResponseFormat)
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxAudioBytes
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultSpeechTimeout
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{}
	}
	return &Speech{cfg: cfg}, nil
}

// HTTPError is a transcription or recognition server's refusal.
type HTTPError struct {
	Status int
	// Message is the server's error message (its JSON error.message when
	// it sent one), with the key masked.
	Message string
}

func (e *HTTPError) Error() string { return fmt.Sprintf("%d: %s", e.Status, e.Message) }

// Transcribe sends a and returns its transcript, cleaned (see
// CleanTranscript). With Stream set it reads the events and returns the
// final text (TranscribeStream with no callback).
func (s *Speech) Transcribe(ctx context.Context, a Audio) (string, error) {
	if s.cfg.Stream {
		return s.TranscribeStream(ctx, a, nil)
	}
	resp, cancel, err := s.post(ctx, a, false)
	if err != nil {
		return "", err
	}
	defer cancel()
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTranscriptionBytes+1))
	if err != nil {
		return "", fmt.Errorf("speech: reading the answer: %w", err)
	}
	if len(body) > maxTranscriptionBytes {
		return "", fmt.Errorf("speech: the answer is over %d bytes", maxTranscriptionBytes)
	}
	if s.cfg.ResponseFormat == "text" && !strings.HasPrefix(strings.TrimSpace(string(body)), "{") {
		return CleanTranscript(string(body)), nil
	}
	var out struct {
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(body, &out); err != nil || out.Text == nil {
		return "", fmt.Errorf("speech: the answer has no text field: %s", s.mask(snippet(body)))
	}
	return CleanTranscript(*out.Text), nil
}

// TranscribeStream sends a with stream=true and reads the server-sent
// events: onText (when not nil) gets the whole transcript so far after
// each transcript.text.delta; the transcript.text.done event's text is
// returned. A stream that ends without it is an error.
func (s *Speech) TranscribeStream(ctx context.Context, a Audio, onText func(string)) (string, error) {
	resp, cancel, err := s.post(ctx, a, true)
	if err != nil {
		return "", err
	}
	defer cancel()
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		return "", fmt.Errorf("speech: asked for a stream, got %q", ct)
	}
	var sofar strings.Builder
	err = readEvents(resp.Body, func(data []byte) (bool, error) {
		var ev struct {
			Type  string `json:"type"`
			Delta string `json:"delta"`
			Text  string `json:"text"`
		}
		if err := json.Unmarshal(data, &ev); err != nil {
			return false, fmt.Errorf("an event is not JSON: %s", s.mask(snippet(data)))
		}
		switch ev.Type {
		case "transcript.text.delta":
			sofar.WriteString(ev.Delta)
			if onText != nil {
				onText(CleanTranscript(sofar.String()))
			}
		case "transcript.text.done":
			sofar.Reset()
			sofar.WriteString(ev.Text)
			return true, nil
		case "error":
			return false, fmt.Errorf("the server sent an error: %s", s.mask(snippet(data)))
		}
		return false, nil
	})
	if err != nil {
		return "", fmt.Errorf("speech: %w", err)
	}
	return CleanTranscript(sofar.String()), nil
}

// post sends the multipart request and returns a 2xx response; cancel
// ends the request's deadline once its body is read.
func (s *Speech) post(ctx context.Context, a Audio, stream bool) (*http.Response, context.CancelFunc, error) {
	if len(a.Data) == 0 {
		return nil, nil, fmt.Errorf("speech: %w", ErrNoAudio)
	}
	if int64(len(a.Data)) > s.cfg.MaxBytes {
		return nil, nil, fmt.Errorf("speech: %w: %d bytes, limit %d", ErrAudioTooLarge, len(a.Data), s.cfg.MaxBytes)
	}
	name, mime := a.Name, a.MIME
	if name == "" {
		name = "audio.wav"
	}
	if mime == "" {
		mime = "audio/wav"
	}
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, name))
	h.Set("Content-Type", mime)
	part, err := w.CreatePart(h)
	if err != nil {
		return nil, nil, err
	}
	part.Write(a.Data)
	fields := [][2]string{{"model", s.cfg.Model}, {"language", s.cfg.Language}, {"response_format", s.cfg.ResponseFormat}}
	if stream {
		fields = append(fields, [2]string{"stream", "true"})
	}
	for _, f := range fields {
		if f[1] != "" {
			w.WriteField(f[0], f[1])
		}
	}
	if err := w.Close(); err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.BaseURL+"/audio/transcriptions", &body)
	if err != nil {
		cancel()
		return nil, nil, fmt.Errorf("speech: %w", err)
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	if s.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+s.cfg.APIKey)
	}
	resp, err := s.cfg.Client.Do(req)
	if err != nil {
		cancel()
		if ctx.Err() == context.DeadlineExceeded {
			return nil, nil, fmt.Errorf("speech: no answer within %s: %w", s.cfg.Timeout, ctx.Err())
		}
		return nil, nil, fmt.Errorf("speech: %s", s.mask(err.Error()))
	}
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		cancel()
		return nil, nil, fmt.Errorf("speech: %w", &HTTPError{Status: resp.StatusCode, Message: s.mask(errorMessage(b))})
	}
	return resp, cancel, nil
}

func (s *Speech) mask(text string) string { return maskKey(text, s.cfg.APIKey) }

// maskKey replaces key in text; keys shorter than 8 bytes are left, as
// they would match ordinary words.
func maskKey(text, key string) string {
	if len(key) < 8 {
		return text
	}
	return strings.ReplaceAll(text, key, "****")
}

// errorMessage is an error body's error.message, or the body itself.
func errorMessage(body []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 {
		var m struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Error, &m) == nil && m.Message != "" {
			return m.Message
		}
		var str string
		if json.Unmarshal(e.Error, &str) == nil && str != "" {
			return str
		}
	}
	if t := snippet(body); t != "" {
		return t
	}
	return "(empty body)"
}

func snippet(b []byte) string {
	t := strings.TrimSpace(string(b))
	if len(t) > 300 {
		t = t[:300] + "…"
	}
	return t
}

// CleanTranscript drops the control tokens some servers leave in a
// transcript ("<|zh|>", "<|NEUTRAL|>") and folds runs of white space.
func CleanTranscript(text string) string {
	var b strings.Builder
	for {
		i := strings.Index(text, "<|")
		if i < 0 {
			break
		}
		j := strings.Index(text[i:], "|>")
		if j < 0 {
			break
		}
		b.WriteString(text[:i])
		b.WriteByte(' ')
		text = text[i+j+2:]
	}
	b.WriteString(text)
	return strings.Join(strings.Fields(b.String()), " ")
}

// Key returns the API key, for a host to add to the secrets it masks in
// logs and events.
func (s *Speech) Key() string { return s.cfg.APIKey }
