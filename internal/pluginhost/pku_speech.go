package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hearth-agent/hearth/internal/media"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// PKU plugins' speech and OCR providers, run over the protocol
// (docs/pku-wire.md): speech.transcribe and ocr.recognize.

// ErrNoProvider is returned for a speech or OCR provider id that no
// running plugin declares.
var ErrNoProvider = errors.New("no such provider")

// defaultProviderTimeout bounds one transcription or recognition.
const defaultProviderTimeout = 2 * time.Minute

// PluginSpeech is a media.Transcriber running a PKU plugin's speech
// provider's transcribe, found by id ("<plugin>.<key>") at each call, so
// a restarted plugin serves the next voice note.
type PluginSpeech struct {
	m           *Manager
	plugin, key string
	baseURL     string
	model, cred string
	Timeout     time.Duration // zero means two minutes
	MaxBytes    int64         // zero means media.DefaultMaxAudioBytes
}

var _ media.Transcriber = (*PluginSpeech)(nil)

// Speech returns the transcriber of the speech provider id
// ("<plugin>.<key>"); baseURL and model empty take the provider's
// defaults, credential is the key given to it as SpeechConfig.credential.
func (m *Manager) Speech(id, baseURL, model, credential string) (*PluginSpeech, error) {
	plugin, key, ok := strings.Cut(id, ".")
	if !ok || plugin == "" || key == "" {
		return nil, fmt.Errorf("speech provider %q: want <plugin>.<key>", id)
	}
	return &PluginSpeech{m: m, plugin: plugin, key: key, baseURL: baseURL, model: model, cred: credential}, nil
}

// running returns the PKU parts of plugin's current run.
func (m *Manager) pkuRun(plugin string) (*pkuRun, error) {
	m.mu.Lock()
	mp, ok := m.procs[plugin]
	m.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%w: plugin %s is not installed", ErrNoProvider, plugin)
	}
	r := mp.proc.pku.Load()
	if r == nil {
		return nil, fmt.Errorf("plugin %s is not running", plugin)
	}
	return r, nil
}

// Transcribe sends a to the plugin's transcribe and returns its text,
// cleaned of control tokens.
func (s *PluginSpeech) Transcribe(ctx context.Context, a media.Audio) (string, error) {
	id := s.plugin + "." + s.key
	limit := s.MaxBytes
	if limit <= 0 {
		limit = media.DefaultMaxAudioBytes
	}
	switch {
	case len(a.Data) == 0:
		return "", fmt.Errorf("speech %s: %w", id, media.ErrNoAudio)
	case int64(len(a.Data)) > limit:
		return "", fmt.Errorf("speech %s: %w: %d bytes, limit %d", id, media.ErrAudioTooLarge, len(a.Data), limit)
	}
	r, err := s.m.pkuRun(s.plugin)
	if err != nil {
		return "", fmt.Errorf("speech %s: %w", id, err)
	}
	def, ok := r.m.Speech[s.key]
	if !ok {
		return "", fmt.Errorf("speech %s: %w: plugin %s declares no speech provider %q", id, ErrNoProvider, s.plugin, s.key)
	}
	if !def.HasTranscribe {
		return "", fmt.Errorf("speech %s (%s) has no transcribe: a streaming-only provider cannot transcribe a recorded voice note", id, def.Name)
	}
	p := wire.SpeechTranscribeParams{Provider: s.key, BaseURL: orDefault(s.baseURL, def.DefaultBaseURL), Model: orDefault(s.model, def.DefaultModel),
		Credential: s.cred, File: a.Data, Name: orDefault(a.Name, "audio.wav"), MimeType: orDefault(a.MIME, "audio/wav")}
	ctx, cancel := context.WithTimeout(ctx, cmpDur(s.Timeout, defaultProviderTimeout))
	defer cancel()
	var res wire.TextResult
	if err := r.conn.Call(ctx, wire.MethodSpeechTranscribe, p, &res); err != nil {
		return "", fmt.Errorf("speech %s (%s): %s", id, def.Name, maskCredential(err.Error(), s.cred))
	}
	return media.CleanTranscript(res.Text), nil
}

// PluginOCR runs a PKU plugin's OCR provider's recognize.
type PluginOCR struct {
	m           *Manager
	plugin, key string
	baseURL     string
	cred        string
	Timeout     time.Duration // zero means two minutes
	MaxPages    int           // zero means no limit
}

// OCR returns the recognizer of the OCR provider id ("<plugin>.<key>"),
// with the base URL and key of the model provider its credentialFrom
// names.
func (m *Manager) OCR(id, baseURL, credential string) (*PluginOCR, error) {
	plugin, key, ok := strings.Cut(id, ".")
	if !ok || plugin == "" || key == "" {
		return nil, fmt.Errorf("ocr provider %q: want <plugin>.<key>", id)
	}
	return &PluginOCR{m: m, plugin: plugin, key: key, baseURL: baseURL, cred: credential}, nil
}

// RecognizeFile sends a document (a scanned PDF, an image) to the
// plugin's recognize and returns its Markdown, which must have a
// "## Page n" heading per page: an answer without "## Page 1" is an
// error, as the user would read it.
func (o *PluginOCR) RecognizeFile(ctx context.Context, data []byte, name, mime string) (string, error) {
	id := o.plugin + "." + o.key
	if len(data) == 0 {
		return "", fmt.Errorf("ocr %s: %w", id, media.ErrNoPages)
	}
	r, err := o.m.pkuRun(o.plugin)
	if err != nil {
		return "", fmt.Errorf("ocr %s: %w", id, err)
	}
	def, ok := r.m.OCR[o.key]
	if !ok {
		return "", fmt.Errorf("ocr %s: %w: plugin %s declares no OCR provider %q", id, ErrNoProvider, o.plugin, o.key)
	}
	ctx, cancel := context.WithTimeout(ctx, cmpDur(o.Timeout, defaultProviderTimeout))
	defer cancel()
	var res wire.TextResult
	p := wire.OCRRecognizeParams{Provider: o.key, BaseURL: o.baseURL, Credential: o.cred, File: data, Name: orDefault(name, "document"), MimeType: mime}
	if err := r.conn.Call(ctx, wire.MethodOCRRecognize, p, &res); err != nil {
		return "", fmt.Errorf("%s could not read this scanned document: %s", def.Name, maskCredential(err.Error(), o.cred))
	}
	if !strings.HasPrefix(strings.TrimSpace(res.Text), "## Page 1") {
		return "", fmt.Errorf("%s could not read this scanned document: its answer does not start with a \"## Page 1\" heading", def.Name)
	}
	return strings.TrimSpace(res.Text), nil
}

var _ media.Recognizer = (*PluginOCR)(nil)

// Recognize reads a document given as page images with the plugin's
// recognize, one call per page (a PKU recognize reads one file), and
// numbers the pages of the whole: each answer's "## Page 1" becomes
// "## Page n". A page that is not an image fails before anything is sent
// (a PDF with media.ErrPDFNeedsPages).
func (o *PluginOCR) Recognize(ctx context.Context, doc media.Document) (string, error) {
	id := o.plugin + "." + o.key
	if len(doc.Pages) == 0 {
		return "", fmt.Errorf("ocr %s: %w", id, media.ErrNoPages)
	}
	if o.MaxPages > 0 && len(doc.Pages) > o.MaxPages {
		return "", fmt.Errorf("ocr %s: %w: %d, limit %d", id, media.ErrTooManyPages, len(doc.Pages), o.MaxPages)
	}
	mimes := make([]string, len(doc.Pages))
	for i, p := range doc.Pages {
		mime, err := media.PageMIME(p)
		if err != nil {
			return "", fmt.Errorf("ocr %s: page %d: %w", id, i+1, err)
		}
		mimes[i] = mime
	}
	parts := make([]string, len(doc.Pages))
	for i, p := range doc.Pages {
		md, err := o.RecognizeFile(ctx, p, fmt.Sprintf("page-%d.%s", i+1, strings.TrimPrefix(mimes[i], "image/")), mimes[i])
		if err != nil {
			return "", fmt.Errorf("page %d: %w", i+1, err)
		}
		body := strings.TrimPrefix(md, "## Page 1")
		parts[i] = strings.TrimSpace(fmt.Sprintf("## Page %d\n\n%s", i+1, strings.TrimSpace(body)))
	}
	return strings.Join(parts, "\n\n"), nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func cmpDur(v, def time.Duration) time.Duration {
	if v <= 0 {
		return def
	}
	return v
}

// maskCredential hides key in a plugin's error text.
func maskCredential(text, key string) string {
	if len(key) < 8 {
		return text
	}
	return strings.ReplaceAll(text, key, "****")
}
