package compat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// haTrialRow is one row of the table of HomeAgent sdk names added for the
// trial of HomeAgent's examples (issue 12): a symbol, the test plugin
// (under testdata/ha_trial) that uses it, and what the row checks. Each
// row builds the plugin as a HomeAgent source folder with the real hearth
// binary (a child process) and has the scripted model call its probe
// tool, whose result says what each name did in the child.
type haTrialRow struct {
	symbol, checks, want string
}

var haTrialRows = []haTrialRow{
	{"PluginSDK.Events().Subscribe", "a child gets a subscriber that never delivers (a warning is logged), never nil", "events:subscribed"},
	{"PluginSDK.RunStopHandlers", "runs the stop handlers once, however often called", "stops:1"},
	{"PluginSDK.PluginMgr().ReloadOne", "refused with sdk.ErrUnavailable's text", "reload:true"},
	{"PluginSDK.Social().GetPerson", "refused with an error", "social:true"},
	{"PluginSDK.RegisterPluginAPI", "refused with an error", "api:true"},
	{"PluginSDK.DeclareProxy, NormalizeProxyHost, ValidateProxyDecl", "logs and goes on; the validators work as HomeAgent's", "proxy:ha-names:true"},
	{"EventToolCall and the other Event* constants", "have HomeAgent's values", "event:tool_call"},
	{"IOInjector, ToolRegistrar, OutputChannelRegistrar, InputChannelRegistrar, APIRegistrar", "PluginSDK and its methods satisfy them (the plugin compiles, its tool is registered through a ToolRegistrar)", "events:"},
}

// TestHomeAgentTrialNames is the table of the HomeAgent names added for
// the example trial, each compiled into a HomeAgent source folder and run
// through the hearth binary.
func TestHomeAgentTrialNames(t *testing.T) {
	h := newHAHearth(t, haHearthBinary(t))
	src := filepath.Join(t.TempDir(), "ha_names")
	if err := os.CopyFS(src, os.DirFS(filepath.Join("testdata", "ha_trial", "ha_names"))); err != nil {
		t.Fatal(err)
	}
	if out := h.ok(t, "plugin", "install", src); !strings.Contains(out, "built HomeAgent plugin ha_names") {
		t.Fatalf("install: %q", out)
	}
	srv := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.Call{{ID: "c1", Name: "ha_names__ha_names_probe", Arguments: `{}`}}},
		llmtest.Reply{Text: "done"},
	)
	if out, errOut, code := h.run(t, "OPENAI_BASE_URL="+srv.URL, "ask", "go"); code != 0 || !strings.HasPrefix(out, "done") {
		t.Fatalf("ask: %d %q %q", code, out, errOut)
	}
	var got string
	for _, m := range srv.Requests()[1].Messages {
		if m["tool_call_id"] == "c1" {
			got, _ = m["content"].(string)
		}
	}
	for _, row := range haTrialRows {
		t.Run(row.symbol, func(t *testing.T) {
			t.Logf("plugin ha_names: %s", row.checks)
			if !strings.Contains(got, row.want) {
				t.Fatalf("probe reported %q, want %q in it", got, row.want)
			}
		})
	}
	// StageContext.IsResponded: the plugin's before_output handler asks
	// it before and after SetResponse and appends the answers to the
	// reply the person gets.
	t.Run("StageContext.IsResponded", func(t *testing.T) {
		srv := llmtest.NewServer(t, llmtest.Reply{Text: "hello"})
		out, errOut, code := h.run(t, "OPENAI_BASE_URL="+srv.URL, "ask", "hi")
		if code != 0 || strings.TrimSpace(out) != "hello responded:[false true]" {
			t.Fatalf("ask: %d %q %q", code, out, errOut)
		}
	})
}

// TestHomeAgentOldModulePath: a plugin importing HomeAgent's SDK under
// its former module path (github.com/JianFeeeee/homeagentsdk, as the
// examples written before the move to gitcode.com do) builds, and the
// model calls its tool.
func TestHomeAgentOldModulePath(t *testing.T) {
	h := newHAHearth(t, haHearthBinary(t))
	src := filepath.Join(t.TempDir(), "ha_oldpath")
	if err := os.CopyFS(src, os.DirFS(filepath.Join("testdata", "ha_trial", "ha_oldpath"))); err != nil {
		t.Fatal(err)
	}
	if out := h.ok(t, "plugin", "install", src); !strings.Contains(out, "built HomeAgent plugin ha_oldpath") {
		t.Fatalf("install: %q", out)
	}
	if got := h.tool(t, "ha_oldpath_upper", `{"text":"abc"}`); got != "ABC" {
		t.Fatalf("tool result %q", got)
	}
}

// TestHomeAgentInstallID: a HomeAgent source folder whose plg.json name
// Hearth reserves (HomeAgent's web example is "web") installs under the
// id --id gives; the plugin gets that id as its name. A reserved or
// invalid --id is refused.
func TestHomeAgentInstallID(t *testing.T) {
	h := newHAHearth(t, haHearthBinary(t))
	src := filepath.Join(t.TempDir(), "ha_oldpath")
	if err := os.CopyFS(src, os.DirFS(filepath.Join("testdata", "ha_trial", "ha_oldpath"))); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"web", "Bad Id"} {
		if out, errOut, code := h.run(t, "", "plugin", "install", src, "--id", bad); code == 0 {
			t.Fatalf("--id %q: installed: %q %q", bad, out, errOut)
		}
	}
	if out := h.ok(t, "plugin", "install", src, "--id", "myweb"); !strings.Contains(out, "installed myweb") {
		t.Fatalf("install: %q", out)
	}
	if got := h.tool(t, "myweb_upper", `{"text":"abc"}`); got != "ABC" {
		t.Fatalf("tool result %q", got)
	}
}
