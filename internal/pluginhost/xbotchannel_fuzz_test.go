package pluginhost

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

// frameHost is the part of Host a channel plugin's frames reach.
type frameHost struct {
	Host
	injected []sdk.Injection
}

func (h *frameHost) Inject(_ string, in sdk.Injection) error {
	h.injected = append(h.injected, in)
	return nil
}

func (h *frameHost) ReplaceRemoteTools(string, []sdk.ToolDef, []sdk.RawToolHandler) []error {
	return nil
}

// FuzzXbotChannelFrame feeds the demultiplexer of a channel plugin's
// output arbitrary lines: it never panics, answers every request with an
// id, and injects only into the plugin's own channel.
func FuzzXbotChannelFrame(f *testing.F) {
	for _, s := range []string{
		`{"id":"p1","method":"send_inbound","params":{"channel":"echo","chat_id":"c","content":"hi","sender_id":"u","chat_type":"group"}}`,
		`{"id":"p2","method":"send_inbound","params":{"channel":"other","content":"hi"}}`,
		`{"id":7,"method":"get_history"}`,
		`{"type":"channel_tools","tools":[{"name":"t","description":"d","parameters":[{"name":"a","type":"array"}],"channels":["web"]}]}`,
		`{"type":"channel_prompt","system_parts":{"a":"b"}}`,
		`{"type":"web_ui","ui":[]}`,
		`{"id":"srv-1","result":{"content":"x"}}`,
		`{"id":"srv-1","error":{"code":1}}`,
		`{"result":"ok"}`,
		`not json`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		h := &frameHost{}
		p := &Process{m: &Manifest{ID: "x", Runtime: "stdio"}, name: "x", log: slog.New(slog.DiscardHandler), opts: Options{Host: h}}
		var out strings.Builder
		c := newXbotChan(p, &xbotChannelDecl{Name: "echo"}, &out)
		pr, pw := io.Pipe()
		go func() { _, _ = io.Copy(io.Discard, pr) }()
		c.demux(strings.NewReader(line+"\n"), pw)
		for _, in := range h.injected {
			if in.Channel != "echo" {
				t.Fatalf("injected into %q", in.Channel)
			}
		}
	})
}
