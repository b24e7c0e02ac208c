//go:build (linux || darwin) && cgo

package pluginhost

import (
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// A .so plugin's channel is a Hearth channel as a compiled-in one's: the
// relayed message is answered on it and the answer reaches the handler.
func TestSOChannel(t *testing.T) {
	dir := t.TempDir()
	so := filepath.Join(dir, "sochan.so")
	args := []string{"build", "-buildmode=plugin", "-o", so}
	if raceEnabled {
		args = append(args, "-race")
	}
	goBin := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	if out, err := exec.Command(goBin, append(args, "./testdata/sochannel")...).CombinedOutput(); err != nil {
		t.Fatalf("building the .so: %v\n%s", err, out)
	}
	factory, err := LoadSO(so)
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t, llmtest.Reply{Text: "answered on sochan"})
	src, _ := llm.NewSources([]llm.Source{{Name: "main", BaseURL: srv.URL}}, "main")
	k := kernel.New(src, nil, &kernel.Options{Logger: slog.New(slog.DiscardHandler)})
	defer k.Close()
	if err := k.LoadPlugin("sochan", factory, nil); err != nil {
		t.Fatal(err)
	}
	if owner, ok := k.ChannelOwner("sochan"); !ok || owner != "sochan" {
		t.Fatalf("owner %q %v", owner, ok)
	}
	r := callTool(k, "sochan__relay", `{"text":"hi"}`)
	if r.IsError || !strings.Contains(r.Content, `"payload":"answered on sochan"`) || !strings.Contains(r.Content, `"final":true`) {
		t.Fatalf("%+v", r)
	}
}
