package media

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const testKey = "sk-test-0123456789abcdef"

// espeakWAV makes a WAV of text spoken by espeak-ng (Debian's package;
// CI installs it). It skips the test where espeak-ng is missing.
func espeakWAV(t *testing.T, text string) []byte {
	t.Helper()
	bin, err := exec.LookPath("espeak-ng")
	if err != nil {
		t.Skip("espeak-ng is not installed (apt-get install espeak-ng)")
	}
	path := filepath.Join(t.TempDir(), "voice.wav")
	if out, err := exec.Command(bin, "-w", path, text).CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v: %s", err, out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wavDuration parses a RIFF/WAVE file's fmt and data chunks and returns
// its duration, or an error saying why it is not a valid PCM WAV.
func wavDuration(b []byte) (time.Duration, error) {
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return 0, errors.New("no RIFF/WAVE header")
	}
	var byteRate uint32
	for p := 12; p+8 <= len(b); {
		id, size := string(b[p:p+4]), int(binary.LittleEndian.Uint32(b[p+4:p+8]))
		p += 8
		if p+size > len(b) {
			return 0, fmt.Errorf("chunk %q runs past the end", id)
		}
		switch id {
		case "fmt ":
			if size < 16 || binary.LittleEndian.Uint16(b[p:]) != 1 {
				return 0, errors.New("fmt chunk is not PCM")
			}
			byteRate = binary.LittleEndian.Uint32(b[p+8:])
		case "data":
			if byteRate == 0 {
				return 0, errors.New("data before fmt")
			}
			return time.Duration(float64(size) / float64(byteRate) * float64(time.Second)), nil
		}
		p += size + size%2
	}
	return 0, errors.New("no data chunk")
}

// transcriptionServer is a loopback server speaking the OpenAI
// transcription wire: it parses the multipart form, checks the file is
// want (byte for byte) and a WAV of 0.5 to 8 seconds, and answers with
// answer (stream: as server-sent events).
type transcriptionServer struct {
	t        *testing.T
	want     [32]byte
	requests atomic.Int32
	fields   chan map[string]string
}

func (s *transcriptionServer) handler(answer func(w http.ResponseWriter, stream bool)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		fail := func(code int, msg string) {
			w.WriteHeader(code)
			json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"message": msg}})
		}
		if r.Method != http.MethodPost || r.URL.Path != "/v1/audio/transcriptions" {
			fail(404, "no route "+r.Method+" "+r.URL.Path)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+testKey {
			fail(401, "Incorrect API key provided: "+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
			return
		}
		if err := r.ParseMultipartForm(32 << 20); err != nil {
			fail(400, "not a multipart form: "+err.Error())
			return
		}
		f, fh, err := r.FormFile("file")
		if err != nil {
			fail(400, "no file: "+err.Error())
			return
		}
		data, _ := io.ReadAll(f)
		if sha256.Sum256(data) != s.want {
			fail(400, "the file is not the audio sent")
			return
		}
		d, err := wavDuration(data)
		if err != nil || d < 500*time.Millisecond || d > 8*time.Second {
			fail(400, fmt.Sprintf("not a WAV of 0.5-8 s: %v %v", d, err))
			return
		}
		got := map[string]string{"filename": fh.Filename, "content-type": fh.Header.Get("Content-Type"), "duration": d.Round(100 * time.Millisecond).String()}
		for k, v := range r.MultipartForm.Value {
			got[k] = v[0]
		}
		s.fields <- got
		answer(w, r.FormValue("stream") == "true")
	}
}

func newTranscriptionServer(t *testing.T, wav []byte, answer func(w http.ResponseWriter, stream bool)) (*transcriptionServer, string) {
	s := &transcriptionServer{t: t, want: sha256.Sum256(wav), fields: make(chan map[string]string, 8)}
	srv := httptest.NewServer(s.handler(answer))
	t.Cleanup(srv.Close)
	return s, srv.URL + "/v1"
}

func TestTranscribeEspeakWAV(t *testing.T) {
	wav := espeakWAV(t, "Turn on the kitchen lights at seven")
	for _, tc := range []struct {
		format, body, ctype, want string
	}{
		{"json", `{"text":"<|en|><|NEUTRAL|> Turn on the kitchen  lights at seven."}`, "application/json", "Turn on the kitchen lights at seven."},
		{"verbose_json", `{"task":"transcribe","language":"english","duration":2.1,"text":"Turn on the kitchen lights at seven.","segments":[]}`, "application/json", "Turn on the kitchen lights at seven."},
		{"text", "Turn on the kitchen lights at seven.\n", "text/plain", "Turn on the kitchen lights at seven."},
	} {
		t.Run(tc.format, func(t *testing.T) {
			srv, base := newTranscriptionServer(t, wav, func(w http.ResponseWriter, _ bool) {
				w.Header().Set("Content-Type", tc.ctype)
				io.WriteString(w, tc.body)
			})
			sp, err := NewSpeech(SpeechConfig{BaseURL: base + "/", APIKey: testKey, Model: "whisper-1", Language: "en", ResponseFormat: tc.format})
			if err != nil {
				t.Fatal(err)
			}
			got, err := sp.Transcribe(context.Background(), Audio{Data: wav, Name: "note.wav"})
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("transcript %q, want %q", got, tc.want)
			}
			f := <-srv.fields
			want := map[string]string{"model": "whisper-1", "language": "en", "response_format": tc.format, "filename": "note.wav", "content-type": "audio/wav"}
			for k, v := range want {
				if f[k] != v {
					t.Errorf("form field %s = %q, want %q", k, f[k], v)
				}
			}
			if _, ok := f["stream"]; ok {
				t.Errorf("stream sent on a plain request: %v", f)
			}
			t.Logf("espeak-ng WAV of %s", f["duration"])
		})
	}
}

func sseEvents(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		fmt.Fprintf(w, "data: %s\n\n", e)
		w.(http.Flusher).Flush()
	}
}

func TestTranscribeStream(t *testing.T) {
	wav := espeakWAV(t, "Remind me to call Anna tomorrow")
	srv, base := newTranscriptionServer(t, wav, func(w http.ResponseWriter, stream bool) {
		if !stream {
			http.Error(w, "stream expected", 400)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, ": keep-alive\n\n")
		sseEvents(w,
			`{"type":"transcript.text.delta","delta":"Remind me"}`,
			`{"type":"transcript.text.delta","delta":" to call"}`,
			`{"type":"transcript.text.delta","delta":" Anna tomorrow."}`,
			`{"type":"transcript.text.done","text":"Remind me to call Anna tomorrow.","usage":{"type":"tokens","input_tokens":14,"output_tokens":8,"total_tokens":22}}`)
	})
	sp, err := NewSpeech(SpeechConfig{BaseURL: base, APIKey: testKey, Model: "gpt-4o-transcribe", Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	var partial []string
	got, err := sp.TranscribeStream(context.Background(), Audio{Data: wav}, func(s string) { partial = append(partial, s) })
	if err != nil {
		t.Fatal(err)
	}
	if got != "Remind me to call Anna tomorrow." {
		t.Errorf("transcript %q", got)
	}
	wantPartial := []string{"Remind me", "Remind me to call", "Remind me to call Anna tomorrow."}
	if fmt.Sprint(partial) != fmt.Sprint(wantPartial) {
		t.Errorf("partial texts %q, want %q", partial, wantPartial)
	}
	if f := <-srv.fields; f["stream"] != "true" || f["model"] != "gpt-4o-transcribe" {
		t.Errorf("form %v", f)
	}
	// Transcribe on a Stream config reads the same events.
	if got, err := sp.Transcribe(context.Background(), Audio{Data: wav}); err != nil || got != "Remind me to call Anna tomorrow." {
		t.Errorf("Transcribe with Stream: %q, %v", got, err)
	}
}

func TestTranscribeFailures(t *testing.T) {
	wav := espeakWAV(t, "Hello")
	ctx := context.Background()

	t.Run("wrong key is masked", func(t *testing.T) {
		_, base := newTranscriptionServer(t, wav, nil)
		bad := "sk-wrong-key-9876543210"
		sp, _ := NewSpeech(SpeechConfig{BaseURL: base, APIKey: bad, Model: "m"})
		_, err := sp.Transcribe(ctx, Audio{Data: wav})
		var he *HTTPError
		if !errors.As(err, &he) || he.Status != 401 {
			t.Fatalf("err %v, want an HTTPError 401", err)
		}
		if strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "****") {
			t.Errorf("key not masked: %v", err)
		}
	})
	t.Run("too large is refused before sending", func(t *testing.T) {
		srv, base := newTranscriptionServer(t, wav, nil)
		sp, _ := NewSpeech(SpeechConfig{BaseURL: base, APIKey: testKey, MaxBytes: int64(len(wav) - 1)})
		if _, err := sp.Transcribe(ctx, Audio{Data: wav}); !errors.Is(err, ErrAudioTooLarge) {
			t.Errorf("err %v, want ErrAudioTooLarge", err)
		}
		if _, err := sp.Transcribe(ctx, Audio{}); !errors.Is(err, ErrNoAudio) {
			t.Errorf("err %v, want ErrNoAudio", err)
		}
		if n := srv.requests.Load(); n != 0 {
			t.Errorf("%d requests sent", n)
		}
	})
	t.Run("answer without text", func(t *testing.T) {
		_, base := newTranscriptionServer(t, wav, func(w http.ResponseWriter, _ bool) { io.WriteString(w, `{"txt":"x"}`) })
		sp, _ := NewSpeech(SpeechConfig{BaseURL: base, APIKey: testKey})
		if _, err := sp.Transcribe(ctx, Audio{Data: wav}); err == nil || !strings.Contains(err.Error(), "no text field") {
			t.Errorf("err %v", err)
		}
	})
	t.Run("stream without done", func(t *testing.T) {
		_, base := newTranscriptionServer(t, wav, func(w http.ResponseWriter, _ bool) {
			sseEvents(w, `{"type":"transcript.text.delta","delta":"Hel"}`)
		})
		sp, _ := NewSpeech(SpeechConfig{BaseURL: base, APIKey: testKey, Stream: true})
		if _, err := sp.Transcribe(ctx, Audio{Data: wav}); !errors.Is(err, errNoDone) {
			t.Errorf("err %v, want errNoDone", err)
		}
	})
	t.Run("stream error event", func(t *testing.T) {
		_, base := newTranscriptionServer(t, wav, func(w http.ResponseWriter, _ bool) {
			sseEvents(w, `{"type":"error","error":{"message":"audio unreadable"}}`)
		})
		sp, _ := NewSpeech(SpeechConfig{BaseURL: base, APIKey: testKey, Stream: true})
		if _, err := sp.Transcribe(ctx, Audio{Data: wav}); err == nil || !strings.Contains(err.Error(), "audio unreadable") {
			t.Errorf("err %v", err)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		_, base := newTranscriptionServer(t, wav, func(w http.ResponseWriter, _ bool) { <-release })
		sp, _ := NewSpeech(SpeechConfig{BaseURL: base, APIKey: testKey, Timeout: 50 * time.Millisecond})
		if _, err := sp.Transcribe(ctx, Audio{Data: wav}); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err %v, want a deadline", err)
		}
	})
	t.Run("bad config", func(t *testing.T) {
		for _, c := range []SpeechConfig{{}, {BaseURL: "ftp://x"}, {BaseURL: "http://x", ResponseFormat: "srt"}} {
			if _, err := NewSpeech(c); err == nil {
				t.Errorf("NewSpeech(%+v) accepted", c)
			}
		}
	})
}

func TestCleanTranscript(t *testing.T) {
	for in, want := range map[string]string{
		"<|zh|><|NEUTRAL|><|Speech|>你好 世界": "你好 世界",
		"  a \n b  ":   "a b",
		"a <|unclosed": "a <|unclosed",
	} {
		if got := CleanTranscript(in); got != want {
			t.Errorf("CleanTranscript(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzReadEvents(f *testing.F) {
	f.Add([]byte("data: {\"type\":\"transcript.text.done\",\"text\":\"x\"}\n\n"))
	f.Add([]byte("event: x\ndata: a\ndata: b\n\n: c\ndata: [DONE]\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		n := 0
		readEvents(bytes.NewReader(b), func(d []byte) (bool, error) {
			n++
			if len(d) > maxEventBytes {
				t.Fatalf("event of %d bytes", len(d))
			}
			return false, nil
		})
	})
}
