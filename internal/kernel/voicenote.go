package kernel

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/hearth-agent/hearth/internal/media"
	"github.com/hearth-agent/hearth/sdk"
)

// maxVoiceNotes is how many audio blocks of one input are transcribed.
const maxVoiceNotes = 4

// transcribeVoiceNotes transcribes the audio blocks of in's media with
// Options.Transcriber and appends each transcript to in.Text, marked as
// a transcription, before the turn starts: on_input handlers, memory and
// the model read it as the message's text. The audio blocks stay in
// in.Media. Only audio sent as a base64 data: URL is transcribed (Hearth
// never fetches URLs); an audio block that cannot be transcribed gets a
// note saying why instead. Without a Transcriber it does nothing.
func (k *Kernel) transcribeVoiceNotes(ctx context.Context, in *Input) {
	if k.cfg.Transcriber == nil {
		return
	}
	var lines []string
	n := 0
	for _, b := range in.Media {
		if b.AudioURL == nil {
			continue
		}
		n++
		if n > maxVoiceNotes {
			lines = append(lines, fmt.Sprintf("[Hearth did not transcribe voice note %d: over the limit of %d per message.]", n, maxVoiceNotes))
			continue
		}
		a, err := voiceNoteAudio(b)
		var text string
		if err == nil {
			text, err = k.cfg.Transcriber.Transcribe(ctx, a)
		}
		switch {
		case err != nil:
			k.log.Warn("voice note not transcribed", "channel", in.Channel, "note", n, "err", err)
			lines = append(lines, fmt.Sprintf("[Hearth could not transcribe voice note %d: %v]", n, err))
		case text == "":
			lines = append(lines, fmt.Sprintf("[Transcription of voice note %d: (no speech heard)]", n))
		default:
			lines = append(lines, fmt.Sprintf("[Transcription of voice note %d]: %s", n, text))
		}
	}
	if len(lines) == 0 {
		return
	}
	if in.Text != "" {
		in.Text += "\n\n"
	}
	in.Text += strings.Join(lines, "\n")
}

// errAudioNotData is the reason an audio block given by URL is not
// transcribed.
var errAudioNotData = errors.New("only audio sent as a base64 data: URL is transcribed; Hearth does not fetch URLs")

// voiceNoteAudio decodes an audio block's data: URL.
func voiceNoteAudio(b sdk.ContentBlock) (media.Audio, error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(b.AudioURL.URL), "data:")
	if !ok {
		return media.Audio{}, errAudioNotData
	}
	head, data, ok := strings.Cut(rest, ",")
	mime, enc, _ := strings.Cut(head, ";")
	if !ok || enc != "base64" || !strings.HasPrefix(strings.ToLower(mime), "audio/") {
		return media.Audio{}, errors.New("the audio is a data: URL that is not base64 audio")
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return media.Audio{}, fmt.Errorf("the audio's base64 does not decode: %w", err)
	}
	return media.Audio{Data: raw, MIME: mime, Name: "voice" + audioExt(mime)}, nil
}

// audioExt is the file extension transcription servers expect for mime.
func audioExt(mime string) string {
	switch sub := strings.TrimPrefix(strings.ToLower(mime), "audio/"); sub {
	case "wav", "x-wav", "wave", "vnd.wave":
		return ".wav"
	case "mpeg", "mp3":
		return ".mp3"
	case "ogg", "opus":
		return ".ogg"
	case "webm":
		return ".webm"
	case "mp4", "m4a", "x-m4a":
		return ".m4a"
	case "flac", "x-flac":
		return ".flac"
	default:
		return ".wav"
	}
}
