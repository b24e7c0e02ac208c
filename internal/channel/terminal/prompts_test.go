package terminal

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-agent/hearth/internal/kernel"
)

// fakeAgent records the messages it is asked, and where each came from
// when untrusted, and answers nothing.
type fakeAgent struct {
	mu        sync.Mutex
	asks      []string
	untrusted []string // each ask's Input.Untrusted
}

func (f *fakeAgent) Ask(_ context.Context, in kernel.Input) kernel.Outcome {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asks = append(f.asks, in.Text)
	f.untrusted = append(f.untrusted, in.Untrusted)
	return kernel.Outcome{}
}

func (f *fakeAgent) SetSink(string, kernel.Sink)                        {}
func (f *fakeAgent) ResetSession(context.Context, string, string) error { return nil }

var reviewPrompt = Prompt{Plugin: "mcp-x", Name: "review", Description: "Review code.\nSecond line.",
	Arguments: []PromptArgument{{Name: "code", Required: true}, {Name: "lang"}}}

// fakePrompts is a prompt source of two prompts whose text names the
// arguments it got; calls records them.
type fakePrompts struct {
	calls []map[string]string
}

func (f *fakePrompts) options(o *Options) *Options {
	o.Prompts = func() []Prompt {
		return []Prompt{reviewPrompt, {Plugin: "mcp-x", Name: "hello", Title: "Say hello"}}
	}
	o.GetPrompt = func(_ context.Context, plugin, name string, args map[string]string) (string, error) {
		f.calls = append(f.calls, maps.Clone(args))
		if name == "hello" {
			return "", errors.New("the server broke")
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s/%s", plugin, name)
		for _, k := range slices.Sorted(maps.Keys(args)) {
			fmt.Fprintf(&b, " %s=%s", k, args[k])
		}
		return b.String(), nil
	}
	return o
}

func TestChatPromptCommands(t *testing.T) {
	in := strings.Join([]string{
		`/mcp-x:review code="a b" go`,
		`/mcp-x:review lang=rust fn main`,
		`/mcp-x:review`,
		`/mcp-x:nope`,
		`/mcp-x:hello`,
		`/help`,
		`/mcp-x:review "unclosed`,
		`plain words`,
	}, "\n") + "\n"
	var out, errOut strings.Builder
	ag := &fakeAgent{}
	fp := &fakePrompts{}
	o := fp.options(&Options{In: strings.NewReader(in), Out: &out, Err: &errOut})
	if err := Chat(t.Context(), ag, o); err != nil {
		t.Fatal(err)
	}
	want := []string{"mcp-x/review code=a b lang=go", "mcp-x/review code=fn main lang=rust", "plain words"}
	if !reflect.DeepEqual(ag.asks, want) {
		t.Errorf("sent %q, want %q", ag.asks, want)
	}
	// A prompt's text is a third party's: its turn starts tainted.
	if want := []string{"mcp-x prompt review", "mcp-x prompt review", ""}; !reflect.DeepEqual(ag.untrusted, want) {
		t.Errorf("sent as untrusted %q, want %q", ag.untrusted, want)
	}
	for _, s := range []string{
		"/mcp-x:review: missing required arguments: code (usage: /mcp-x:review code=… [lang=…])",
		"unknown command /mcp-x:nope",
		"/mcp-x:hello: the server broke",
		"unclosed quote",
	} {
		if !strings.Contains(errOut.String(), s) {
			t.Errorf("errors lack %q:\n%s", s, errOut.String())
		}
	}
	for _, s := range []string{"→ mcp-x/review code=a b lang=go\n", "/mcp-x:review code=… [lang=…]\n      Review code.\n", "/mcp-x:hello\n      Say hello\n"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("/help lacks %q:\n%s", s, out.String())
		}
	}
}

func TestChatWithoutPromptsKnowsNoPromptCommand(t *testing.T) {
	var out, errOut strings.Builder
	ag := &fakeAgent{}
	err := Chat(t.Context(), ag, &Options{In: strings.NewReader("/mcp-x:review code=1\n/help\n"), Out: &out, Err: &errOut})
	if err != nil {
		t.Fatal(err)
	}
	if len(ag.asks) != 0 || !strings.Contains(errOut.String(), "unknown command /mcp-x:review") {
		t.Errorf("asks %q, errors %q", ag.asks, errOut.String())
	}
	if strings.Contains(out.String(), "MCP") {
		t.Errorf("/help lists prompts without any:\n%s", out.String())
	}
}

func TestPromptTextAsksForMissingArguments(t *testing.T) {
	fp := &fakePrompts{}
	o := fp.options(&Options{})
	var labels []string
	ask := func(label string) (string, error) {
		labels = append(labels, label)
		return "x := 1", nil
	}
	got, origin, err := promptText(t.Context(), *o, "/mcp-x:review lang=go", ask)
	if err != nil {
		t.Fatal(err)
	}
	if got != "mcp-x/review code=x := 1 lang=go" || origin != "mcp-x prompt review" || !reflect.DeepEqual(labels, []string{"code: "}) {
		t.Errorf("got %q from %q after asking %q", got, origin, labels)
	}
	_, _, err = promptText(t.Context(), *o, "/mcp-x:review", func(string) (string, error) { return " ", nil })
	if !errors.Is(err, ErrMissingArguments) {
		t.Errorf("an empty answer: %v, want ErrMissingArguments", err)
	}
	_, _, err = promptText(t.Context(), *o, "/mcp-x:review", func(string) (string, error) { return "", errCleared })
	if !errors.Is(err, errCleared) {
		t.Errorf("Ctrl-C: %v, want errCleared", err)
	}
}

func TestBindArguments(t *testing.T) {
	one := Prompt{Plugin: "p", Name: "one", Arguments: []PromptArgument{{Name: "text", Required: true}}}
	none := Prompt{Plugin: "p", Name: "none"}
	for _, tt := range []struct {
		p       Prompt
		words   []string
		want    map[string]string
		wantErr bool
	}{
		{reviewPrompt, nil, map[string]string{}, false},
		{reviewPrompt, []string{"a", "b"}, map[string]string{"code": "a", "lang": "b"}, false},
		{reviewPrompt, []string{"lang=go", "a"}, map[string]string{"code": "a", "lang": "go"}, false},
		{reviewPrompt, []string{"a", "b", "c"}, map[string]string{"code": "a", "lang": "b c"}, false},
		{reviewPrompt, []string{"x=1"}, map[string]string{"code": "x=1"}, false},
		{reviewPrompt, []string{"code="}, map[string]string{"code": ""}, false},
		{one, []string{"hello", "world"}, map[string]string{"text": "hello world"}, false},
		{none, nil, map[string]string{}, false},
		{none, []string{"extra"}, nil, true},
		{reviewPrompt, []string{"code=1", "lang=2", "3"}, nil, true},
	} {
		got, err := bindArguments(tt.p, tt.words)
		if (err != nil) != tt.wantErr || (!tt.wantErr && !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("bindArguments(%s, %q) = %v, %v; want %v (error %v)", tt.p.Name, tt.words, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestSplitWords(t *testing.T) {
	for _, tt := range []struct {
		line string
		want []string
	}{
		{"/a", []string{"/a"}},
		{"  /a  b\tc ", []string{"/a", "b", "c"}},
		{`/a code="x y" 'it''s'`, []string{"/a", "code=x y", "its"}},
		{`/a "say \"hi\" \\ \n"`, []string{"/a", `say "hi" \ \n`}},
		{`/a ""`, []string{"/a", ""}},
		{`/a 'x "y"'`, []string{"/a", `x "y"`}},
		{`/a 代码="你 好"`, []string{"/a", "代码=你 好"}},
	} {
		got, err := splitWords(tt.line)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q", tt.line, got, err, tt.want)
		}
	}
	for _, bad := range []string{`/a "x`, `/a 'x`, " ", ""} {
		if _, err := splitWords(bad); err == nil {
			t.Errorf("splitWords(%q): no error", bad)
		}
	}
}

func FuzzSplitWords(f *testing.F) {
	for _, s := range []string{`/a code="x y" 'z'`, `/a "\"\\"`, "/a\tb", `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words, err := splitWords(line)
		if err != nil {
			return
		}
		if len(words) == 0 {
			t.Fatalf("splitWords(%q): no words and no error", line)
		}
		// Words rejoined with quotes split back the same.
		var b strings.Builder
		for _, w := range words {
			b.WriteString(`"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(w) + `" `)
		}
		again, err := splitWords(b.String())
		if err != nil || !reflect.DeepEqual(again, words) {
			t.Fatalf("splitWords(%q) = %q; requoted %q gives %q, %v", line, words, b.String(), again, err)
		}
	})
}

func TestEditorTabCompletesCommands(t *testing.T) {
	complete := func(word string) []string {
		return completions(word, []Prompt{reviewPrompt, {Plugin: "mcp-x", Name: "hello"}, {Plugin: "mcp-y", Name: "bad\x1bname"}})
	}
	for _, tt := range []struct {
		keys, want string
		listed     string // on the screen after Tab
	}{
		{"/mcp-x:r\t\r", "/mcp-x:review ", ""},
		{"/mcp-\t\r", "/mcp-x:", ""}, // the name with an escape is not offered
		{"/mcp-x:\t\r", "/mcp-x:", "/mcp-x:hello  /mcp-x:review"},
		{"/mcp-x\t\r", "/mcp-x:", ""},
		{"/sou\t\r", "/source", ""},
		{"/zzz\t\r", "/zzz", ""},
		{"hi\t\r", "hi    ", ""},
		{"/new x\t\r", "/new x    ", ""},
	} {
		screen := newVT(80)
		e := &editor{in: bufio.NewReader(strings.NewReader(tt.keys)), out: screen, width: func() int { return 80 },
			hist: &history{}, prompt: "› ", cont: "… ", complete: complete}
		got, err := e.readMessage()
		if err != nil || got != tt.want {
			t.Errorf("keys %q: got %q, %v; want %q", tt.keys, got, err, tt.want)
		}
		if tt.listed != "" && !strings.Contains(strings.Join(screen.lines(), "\n"), tt.listed) {
			t.Errorf("keys %q: the screen lacks %q:\n%s", tt.keys, tt.listed, strings.Join(screen.lines(), "\n"))
		}
	}
}

func TestCommonPrefix(t *testing.T) {
	for _, tt := range []struct {
		list []string
		want string
	}{
		{nil, ""},
		{[]string{"/abc"}, "/abc"},
		{[]string{"/abc", "/abd", "/ab"}, "/ab"},
		{[]string{"/你好", "/你们"}, "/你"},
	} {
		if got := commonPrefix(tt.list); got != tt.want {
			t.Errorf("commonPrefix(%q) = %q, want %q", tt.list, got, tt.want)
		}
	}
}

func TestAskWithAPromptCommand(t *testing.T) {
	for _, tt := range []struct {
		text, sent, untrusted, errText string
	}{
		{`/mcp-x:review "a b"`, "mcp-x/review code=a b", "mcp-x prompt review", ""},
		{`/mcp-x:review lang=go`, "", "", "missing required arguments: code"},
		{`/mcp-x:nope a`, "/mcp-x:nope a", "", ""},
		{`plain words`, "plain words", "", ""},
	} {
		var out, errOut strings.Builder
		ag := &fakeAgent{}
		o := (&fakePrompts{}).options(&Options{In: strings.NewReader(""), Out: &out, Err: &errOut})
		err := Ask(t.Context(), ag, tt.text, o)
		if tt.errText != "" {
			if !errors.Is(err, ErrFailed) || !strings.Contains(errOut.String(), tt.errText) || len(ag.asks) != 0 {
				t.Errorf("Ask(%q) = %v, errors %q, sent %q; want it refused with %q", tt.text, err, errOut.String(), ag.asks, tt.errText)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(ag.asks, []string{tt.sent}) || !reflect.DeepEqual(ag.untrusted, []string{tt.untrusted}) {
			t.Errorf("Ask(%q) = %v, sent %q as untrusted %q; want %q, %q", tt.text, err, ag.asks, ag.untrusted, tt.sent, tt.untrusted)
		}
	}
}
