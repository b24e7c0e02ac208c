// Command driver runs one turn of a hearth binary against a scripted
// model (sdk/llmtest) that calls one tool, and prints the tools the model
// was offered and the tool's result. It drives the HomeAgent example
// trial (docs/plugins.md, "HomeAgent plugins as they ship"):
//
//	go run ./internal/compat/testdata/ha_trial/driver HEARTH HEARTH_HOME TOOL ARGS_JSON
//
// With TOOL "-" the model calls no tool and answers ARGS_JSON as text
// (for plugins that only have stage handlers).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// tb is the testing.TB llmtest.NewServer needs outside a test.
type tb struct {
	testing.TB
	cleanups []func()
}

func (t *tb) Helper()                           {}
func (t *tb) Cleanup(f func())                  { t.cleanups = append(t.cleanups, f) }
func (t *tb) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (t *tb) Errorf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
func (t *tb) Logf(format string, args ...any)   { fmt.Fprintf(os.Stderr, format+"\n", args...) }

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: driver HEARTH HEARTH_HOME TOOL ARGS_JSON")
		os.Exit(2)
	}
	bin, home, tool, args := os.Args[1], os.Args[2], os.Args[3], os.Args[4]
	t := &tb{}
	defer func() {
		for i := len(t.cleanups) - 1; i >= 0; i-- {
			t.cleanups[i]()
		}
	}()
	script := []llmtest.Reply{
		{ToolCalls: []llmtest.Call{{ID: "call_1", Name: tool, Arguments: args}}},
		{Text: "done"},
	}
	if tool == "-" { // no tool: the model answers ARGS as its text
		script = []llmtest.Reply{{Text: args}}
	}
	srv := llmtest.NewServer(t, script...)
	cmd := exec.Command(bin, "ask", "call the tool")
	cmd.Env = append(os.Environ(), "HEARTH_HOME="+home, "OPENAI_BASE_URL="+srv.URL)
	out, err := cmd.CombinedOutput()
	fmt.Printf("ask: err=%v\n%s\n", err, out)
	reqs := srv.Requests()
	if len(reqs) == 0 {
		fmt.Println("no model request")
		return
	}
	fmt.Printf("tools offered: %s\n", strings.Join(reqs[0].ToolNames(), " "))
	if len(reqs) < 2 {
		fmt.Println("no second request: the tool call did not complete")
		return
	}
	for _, m := range reqs[1].Messages {
		if m["role"] == "tool" {
			b, _ := json.Marshal(m["content"])
			s := string(b)
			if len(s) > 600 {
				s = s[:600] + "..."
			}
			fmt.Printf("tool result: %s\n", s)
		}
	}
}
