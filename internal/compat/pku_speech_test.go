//go:build unix

package compat

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/media"
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

const speechKey = "sk-plugin-speech-0123456789"

// checkPluginSpeech has Hearth transcribe a voice note spoken by
// espeak-ng through a plugin's speech provider id whose transcribe is
// its SDK's openAITranscribe (TypeScript) or open_ai_transcribe
// (Python), its default model model: Hearth sends
// speech.transcribe, the plugin uploads the WAV to a loopback server
// speaking OpenAI's transcription wire, which checks it is the same,
// valid WAV. A refused key comes back as the plugin's error, masked.
func checkPluginSpeech(t *testing.T, m *pluginhost.Manager, id, model string) {
	wav := espeakWAV(t)
	srv := speechServer(t, wav, model)
	ctx := context.Background()
	sp, err := m.Speech(id, srv.URL+"/v1", "", speechKey) // the model: the provider's default
	if err != nil {
		t.Fatal(err)
	}
	got, err := sp.Transcribe(ctx, media.Audio{Data: wav, Name: "note.wav", MIME: "audio/wav"})
	if err != nil || got != "Turn on the kitchen lights." {
		t.Fatalf("transcript %q, %v", got, err)
	}
	bad := "sk-wrong-speech-key-987654321"
	sp, _ = m.Speech(id, srv.URL+"/v1", "", bad)
	_, err = sp.Transcribe(ctx, media.Audio{Data: wav, Name: "note.wav"})
	if err == nil || !strings.Contains(err.Error(), "401: Incorrect API key provided: ****") || strings.Contains(err.Error(), bad) {
		t.Errorf("wrong key: %v", err)
	}
	sp, _ = m.Speech(strings.Split(id, ".")[0]+".nope", srv.URL+"/v1", "", speechKey)
	if _, err := sp.Transcribe(ctx, media.Audio{Data: wav}); !errors.Is(err, pluginhost.ErrNoProvider) {
		t.Errorf("unknown provider: %v", err)
	}
	sp, _ = m.Speech(id, srv.URL+"/v1", "", speechKey)
	sp.MaxBytes = 100
	if _, err := sp.Transcribe(ctx, media.Audio{Data: wav}); !errors.Is(err, media.ErrAudioTooLarge) {
		t.Errorf("too large: %v", err)
	}
}

// espeakWAV is "Turn on the kitchen lights" spoken by espeak-ng
// (Debian's package; CI installs it); the test is skipped without it.
func espeakWAV(t *testing.T) []byte {
	t.Helper()
	bin, err := exec.LookPath("espeak-ng")
	if err != nil {
		t.Skip("espeak-ng is not installed (apt-get install espeak-ng)")
	}
	path := filepath.Join(t.TempDir(), "note.wav")
	if out, err := exec.Command(bin, "-w", path, "Turn on the kitchen lights").CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v: %s", err, out)
	}
	wav, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return wav
}

// speechServer is a loopback server speaking OpenAI's transcription
// wire: it parses the multipart form, checks the file is wav (a valid
// WAV, byte for byte) named note.wav or voice.wav and the model, and
// answers a scripted transcript.
func speechServer(t *testing.T, wav []byte, model string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+speechKey {
			w.WriteHeader(401)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+`"}}`)
			return
		}
		f, fh, err := r.FormFile("file")
		if err != nil || r.URL.Path != "/v1/audio/transcriptions" || r.FormValue("model") != model || (fh.Filename != "note.wav" && fh.Filename != "voice.wav") {
			http.Error(w, `{"error":{"message":"bad request"}}`, 400)
			return
		}
		got, _ := io.ReadAll(f)
		if !bytes.Equal(got, wav) || !validWAV(got) {
			http.Error(w, `{"error":{"message":"not the WAV sent"}}`, 400)
			return
		}
		io.WriteString(w, `{"text":"<|en|> Turn on the kitchen lights."}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestPKUSpeechVoiceNote is the whole path: config.json's speech names
// the TypeScript plugin pkuall's provider asr; a voice note (espeak-ng's
// WAV as a data: URL) on an input is transcribed through the plugin
// before the turn, and the model reads the transcript.
func TestPKUSpeechVoiceNote(t *testing.T) {
	wav := espeakWAV(t)
	speech := speechServer(t, wav, "sense")
	h := openTSHearthWith(t, []string{"pkuall"}, func(a *app.App) {
		cfg := `{"speech":{"provider":"pkuall.asr","base_url":"` + speech.URL + `/v1","api_key":"` + speechKey + `"}}`
		if err := os.WriteFile(filepath.Join(a.DataDir, "config.json"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
	}, llmtest.Reply{Text: "Done."})
	in := sdk.Injection{Channel: "terminal", Media: []sdk.ContentBlock{{Type: "audio_url",
		AudioURL: &sdk.AudioURL{URL: "data:audio/wav;base64," + base64.StdEncoding.EncodeToString(wav)}}}}
	if out := h.app.Kernel.Ask(context.Background(), kernel.Input{Injection: in}); out.Err != nil {
		t.Fatal(out.Err)
	}
	reqs := h.srv.Requests()
	msgs := reqs[len(reqs)-1].Messages
	if got, _ := msgs[len(msgs)-1]["content"].(string); !strings.Contains(got, "[Transcription of voice note 1]: Turn on the kitchen lights.") {
		t.Fatalf("the model read %q", got)
	}
}

// checkPluginOCR has Hearth run pkuall's OCR provider doc, whose
// recognize answers "## Page 1".
func checkPluginOCR(t *testing.T, m *pluginhost.Manager) {
	o, err := m.OCR("pkuall.doc", "https://api.example.com/v1", "k")
	if err != nil {
		t.Fatal(err)
	}
	got, err := o.RecognizeFile(context.Background(), []byte("%PDF-1.7 scanned"), "scan.pdf", "application/pdf")
	if err != nil || got != "## Page 1" {
		t.Fatalf("%q, %v", got, err)
	}
}

// checkPluginOCRPages has Hearth read two real PNG pages with a plugin's
// OCR provider id whose recognize answers "## Page 1\n<file name>": one
// call a page, renumbered; a PDF is refused before anything is sent.
func checkPluginOCRPages(t *testing.T, m *pluginhost.Manager, id string) {
	o, err := m.OCR(id, "https://api.example.com/v1", "k")
	if err != nil {
		t.Fatal(err)
	}
	page := func(w int) []byte {
		var b bytes.Buffer
		if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, 10))); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	got, err := o.Recognize(context.Background(), media.Document{Pages: [][]byte{page(10), page(20)}})
	if want := "## Page 1\n\npage-1.png\n\n## Page 2\n\npage-2.png"; err != nil || got != want {
		t.Fatalf("%q, %v; want %q", got, err, want)
	}
	if _, err := o.Recognize(context.Background(), media.Document{Pages: [][]byte{[]byte("%PDF-1.4")}}); !errors.Is(err, media.ErrPDFNeedsPages) {
		t.Errorf("a PDF: %v", err)
	}
}

// validWAV reports whether b is a RIFF/WAVE file whose data chunk holds
// 0.5 to 8 seconds of PCM.
func validWAV(b []byte) bool {
	if len(b) < 44 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return false
	}
	var rate uint32
	for p := 12; p+8 <= len(b); {
		id, size := string(b[p:p+4]), int(binary.LittleEndian.Uint32(b[p+4:p+8]))
		p += 8
		switch {
		case p+size > len(b):
			return false
		case id == "fmt " && size >= 16:
			rate = binary.LittleEndian.Uint32(b[p+8:])
		case id == "data":
			secs := float64(size) / float64(rate)
			return rate > 0 && secs >= 0.5 && secs <= 8
		}
		p += size + size%2
	}
	return false
}
