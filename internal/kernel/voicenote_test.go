package kernel

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/media"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// TestVoiceNoteTranscribed sends inputs with audio blocks through a real
// media.Speech client to a loopback transcription server: a data: URL
// voice note reaches the server as its bytes and the model reads its
// transcript, marked; an audio URL is not fetched and says so; a server
// failure is a note, and the turn still runs.
func TestVoiceNoteTranscribed(t *testing.T) {
	audio := []byte("RIFF....WAVEfmt voice-note-bytes")
	trans := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, fh, err := r.FormFile("file")
		if err != nil {
			http.Error(w, `{"error":{"message":"no file"}}`, 400)
			return
		}
		got, _ := io.ReadAll(f)
		switch {
		case bytes.Equal(got, []byte("fail")):
			http.Error(w, `{"error":{"message":"decoder crashed"}}`, 500)
		case !bytes.Equal(got, audio) || fh.Filename != "voice.ogg" || r.FormValue("model") != "whisper-1":
			http.Error(w, fmt.Sprintf(`{"error":{"message":"unexpected upload %q %q"}}`, fh.Filename, r.FormValue("model")), 400)
		default:
			io.WriteString(w, `{"text":"Buy milk on the way home."}`)
		}
	}))
	defer trans.Close()
	sp, err := media.NewSpeech(media.SpeechConfig{BaseURL: trans.URL + "/v1", Model: "whisper-1"})
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t, llmtest.Reply{Text: "ok"}, llmtest.Reply{Text: "ok"})
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	k := New(&llm.Client{BaseURL: srv.URL, Model: "test", Backoff: time.Millisecond}, st,
		&Options{Logger: slog.New(slog.DiscardHandler), Transcriber: sp})
	defer k.Close()

	dataURL := func(b []byte) string { return "data:audio/ogg;base64," + base64.StdEncoding.EncodeToString(b) }
	in := sdk.Injection{Channel: "test", Text: "listen", Media: []sdk.ContentBlock{
		{Type: "audio_url", AudioURL: &sdk.AudioURL{URL: dataURL(audio)}},
		{Type: "audio_url", AudioURL: &sdk.AudioURL{URL: "https://example.invalid/v.ogg"}},
	}}
	if out := k.Ask(ctx, Input{Injection: in}); out.Err != nil {
		t.Fatal(out.Err)
	}
	in = sdk.Injection{Channel: "test", Media: []sdk.ContentBlock{{Type: "audio_url", AudioURL: &sdk.AudioURL{URL: dataURL([]byte("fail"))}}}}
	if out := k.Ask(ctx, Input{Injection: in}); out.Err != nil {
		t.Fatal(out.Err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	first := reqs[0].Messages[len(reqs[0].Messages)-1]["content"].(string)
	for _, want := range []string{"listen", "[Transcription of voice note 1]: Buy milk on the way home.",
		"[Hearth could not transcribe voice note 2: only audio sent as a base64 data: URL is transcribed"} {
		if !strings.Contains(first, want) {
			t.Errorf("first message %q lacks %q", first, want)
		}
	}
	if strings.Contains(first, noteNoAudio) {
		t.Errorf("the no-audio note beside a transcript: %q", first)
	}
	second := reqs[1].Messages[len(reqs[1].Messages)-1]["content"].(string)
	if !strings.Contains(second, "[Hearth could not transcribe voice note 1: speech: 500: decoder crashed]") {
		t.Errorf("second message %q", second)
	}
	// The transcript is in the stored history: the next turn has it.
	var hist strings.Builder
	for _, m := range reqs[1].Messages {
		fmt.Fprint(&hist, m["content"])
	}
	if !strings.Contains(hist.String(), "Buy milk on the way home.") {
		t.Errorf("the transcript is not in the history: %s", hist.String())
	}
}

func FuzzVoiceNoteAudio(f *testing.F) {
	for _, s := range []string{"data:audio/wav;base64,UklGRg==", "data:audio/ogg,raw", "data:;base64,", "https://x/v.ogg", "data:audio/wav;base64,@@"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, url string) {
		a, err := voiceNoteAudio(sdk.ContentBlock{AudioURL: &sdk.AudioURL{URL: url}})
		if err != nil {
			return
		}
		if !strings.HasPrefix(strings.ToLower(a.MIME), "audio/") || !strings.HasPrefix(a.Name, "voice.") {
			t.Fatalf("%q gave %q %q", url, a.MIME, a.Name)
		}
	})
}
