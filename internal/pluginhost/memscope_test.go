//go:build unix

package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/knowledge"
	"github.com/hearth-agent/hearth/internal/memory"
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/scope/scopetest"
	"github.com/hearth-agent/hearth/internal/search"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// scopedPlugin remembers and recalls through HomeAgent's context-free
// memory APIs from a child process: the same tools the Python and
// TypeScript plugins below have.
type scopedPlugin struct {
	name  string
	fire  chan struct{} // "fire" lets the goroutine "later" started write
	fired chan string   // and hears how its writes went
}

func newScopedPlugin(name string, _ map[string]any) (sdk.Plugin, error) {
	return &scopedPlugin{name: name, fire: make(chan struct{}, 1), fired: make(chan string, 1)}, nil
}

func (p *scopedPlugin) Name() string { return p.name }
func (p *scopedPlugin) Stop() error  { return nil }

func (p *scopedPlugin) Start(s *sdk.PluginSDK) error {
	err := s.RegisterTool("remember", sdk.ToolDef{Parameters: map[string]any{"type": "object",
		"properties": map[string]any{"fact": map[string]any{"type": "string"}}}},
		func(args map[string]any) (any, error) {
			fact, _ := args["fact"].(string)
			if err := s.Memory().Commit([]sdk.Triple{{Subject: fact, Relation: "is", Object: "known"}}); err != nil {
				return nil, err
			}
			if err := s.DocMemory().Insert(&sdk.Doc{ID: "fact", Content: fact}); err != nil {
				return nil, err
			}
			return "ok", s.Knowledge().Add("fact", fact)
		})
	if err != nil {
		return err
	}
	s.RegisterStage(sdk.StageOnInput, func(sc *sdk.StageContext) error {
		return s.TextMemory().Append(sdk.TextEvent{Role: "user", Content: sc.RawMessage})
	})
	// "later" starts a goroutine that writes once "fire" says so: during
	// a later turn, after "later"'s call has returned.
	err = s.RegisterTool("later", sdk.ToolDef{}, func(map[string]any) (any, error) {
		go func() {
			<-p.fire
			var errs []string
			for _, err := range []error{
				s.Memory().Commit([]sdk.Triple{{Subject: "late", Relation: "is", Object: "known"}}),
				s.DocMemory().Insert(&sdk.Doc{ID: "late", Content: "late"}),
				s.TextMemory().Append(sdk.TextEvent{Role: "user", Content: "late"}),
				s.Knowledge().Add("late", "late"),
			} {
				errs = append(errs, fmt.Sprint(err))
			}
			p.fired <- strings.Join(errs, "\n")
		}()
		return "started", nil
	})
	if err != nil {
		return err
	}
	err = s.RegisterTool("fire", sdk.ToolDef{}, func(map[string]any) (any, error) {
		p.fire <- struct{}{}
		return <-p.fired, nil
	})
	if err != nil {
		return err
	}
	return s.RegisterTool("recall", sdk.ToolDef{}, func(map[string]any) (any, error) {
		var found []string
		ents, _, err := s.Memory().Recall([]string{"fact"}, 1)
		for _, e := range ents {
			found = append(found, "g:"+e.Name)
		}
		for _, d := range s.DocMemory().Query("fact", 10) {
			found = append(found, "d:"+d.Content)
		}
		ks, _ := s.Knowledge().Search("fact", 10)
		for _, k := range ks {
			found = append(found, "k:"+k.Content)
		}
		slices.Sort(found)
		if len(found) == 0 {
			return "none", err
		}
		return strings.Join(found, " "), err
	})
}

// The same plugin in Python; "stash" returns the call's token and
// "replay" commits with a token it is given, as a plugin trying to act
// in a conversation it is not serving would.
const scopedPython = `
import queue
import threading
from hearth_plugin import define_plugin, define_tool, serve, _call_token, in_call, CallEnded

def remember(args, ctx):
    fact = args["fact"]
    ctx.services.commit([{"subject": fact, "relation": "is", "object": "known"}])
    ctx.services.insert_doc("", fact, id="fact")
    ctx.services.add_knowledge("fact", fact)
    return "ok"

def recall(args, ctx):
    s = ctx.services
    found = ["g:" + e["name"] for e in (s.recall(["fact"], 1) or {}).get("entities") or []]
    found += ["d:" + d["content"] for d in s.query_docs("fact", 10)]
    found += ["k:" + k["content"] for k in s.search_knowledge("fact", 10)]
    return " ".join(sorted(found)) or "none"

def stash(args, ctx):
    return _call_token.get()

def replay(args, ctx):
    try:
        ctx.services._conn.call("memory.commit", {"triples": [{"subject": args["fact"], "relation": "is", "object": "known"}],
                                                   "callToken": args["token"]})
    except CallEnded as e:
        return "refused: " + e.message
    return "ok"

FIRE = threading.Event()
FIRED = queue.Queue()

def later(args, ctx):
    # Work left behind in the call's context (a thread through in_call)
    # writes once "fire" says so, after this call has returned.
    def work(s):
        FIRE.wait(30)
        errs = []
        for w in (lambda: s.commit([{"subject": "late", "relation": "is", "object": "known"}]),
                  lambda: s.insert_doc("", "late", id="late"),
                  lambda: s.append_text("user", "late"),
                  lambda: s.add_knowledge("late", "late")):
            try:
                w()
                errs.append("None")
            except CallEnded as e:
                errs.append(e.message)
        FIRED.put("\n".join(errs))
    threading.Thread(target=in_call(work), args=(ctx.services,), daemon=True).start()
    return "started"

def fire(args, ctx):
    FIRE.set()
    return FIRED.get(timeout=30)

def hold(args, ctx):
    # Hands this call's live token to another plugin through a FIFO and
    # waits, still running, until that plugin has used it.
    with open(args["out"], "w") as f:
        f.write(_call_token.get())
    with open(args["back"]) as f:
        f.read()
    return "held"

def grab(args, ctx):
    with open(args["out"]) as f:
        token = f.read()
    try:
        ctx.services._conn.call("memory.commit", {"triples": [{"subject": "foreign-live", "relation": "is", "object": "known"}],
                                                   "callToken": token})
        return "ok"
    except CallEnded as e:
        return "refused: " + e.message
    finally:
        with open(args["back"], "w") as f:
            f.write("done")

FIFOS = {"type": "object", "properties": {"out": {"type": "string"}, "back": {"type": "string"}}}

def on_input(sc):
    STARTED.wait(30)  # start runs on a thread of its own after the handshake
    SERVICES[0].append_text("user", sc["rawMessage"])
    return sc

SERVICES = []
STARTED = threading.Event()
def start(services):
    SERVICES.append(services)
    STARTED.set()

serve(define_plugin(id=ID, name=ID, version="1.0.0", start=start,
    tools={"remember": define_tool(description="remember", input={"type": "object", "properties": {"fact": {"type": "string"}}}, execute=remember),
           "recall": define_tool(description="recall", execute=recall),
           "stash": define_tool(description="stash", execute=stash),
           "later": define_tool(description="later", execute=later),
           "fire": define_tool(description="fire", execute=fire),
           "hold": define_tool(description="hold", input=FIFOS, execute=hold),
           "grab": define_tool(description="grab", input=FIFOS, execute=grab),
           "replay": define_tool(description="replay", input={"type": "object", "properties": {"fact": {"type": "string"}, "token": {"type": "string"}}}, execute=replay)},
    stages={"on_input": on_input}))
`

// The same plugin in TypeScript.
const scopedTypeScript = `
import { definePlugin, defineTool, serve, currentCallToken, CallEnded, z } from '@hearth-agent/plugin-sdk';
// "later" leaves a promise behind that writes once "fire" says so, after
// its call has returned.
let fire;
const fired = new Promise((resolve) => { fire = resolve; });
let late;
serve(definePlugin({
  id: ID, name: ID, version: '1.0.0',
  tools: {
    remember: defineTool({ description: 'remember', input: z.object({ fact: z.string() }),
      execute: async ({ fact }, ctx) => {
        await ctx.services.memory.commit([{ subject: fact, relation: 'is', object: 'known' }]);
        await ctx.services.memory.insertDoc({ id: 'fact', content: fact });
        await ctx.services.knowledge.add('fact', fact);
        return 'ok';
      } }),
    recall: defineTool({ description: 'recall', execute: async (_args, ctx) => {
      const s = ctx.services;
      const r = await s.memory.recall(['fact'], 1);
      const found = (r.entities ?? []).map((e) => 'g:' + e.name);
      for (const d of (await s.memory.queryDocs('fact', 10)) ?? []) found.push('d:' + d.content);
      for (const k of (await s.knowledge.search('fact', 10)) ?? []) found.push('k:' + k.content);
      return found.sort().join(' ') || 'none';
    } }),
    stash: defineTool({ description: 'stash', execute: () => currentCallToken() ?? '' }),
    later: defineTool({ description: 'later', execute: (_args, ctx) => {
      const m = ctx.services.memory;
      late = fired.then(async () => {
        const errs = [];
        for (const w of [() => m.commit([{ subject: 'late', relation: 'is', object: 'known' }]),
          () => m.insertDoc({ id: 'late', content: 'late' }), () => m.appendText({ role: 'user', content: 'late' }),
          () => ctx.services.knowledge.add('late', 'late')]) {
          try { await w(); errs.push('None'); } catch (e) { errs.push(e instanceof CallEnded ? e.message : 'not CallEnded: ' + e); }
        }
        return errs.join('\n');
      });
      return 'started';
    } }),
    fire: defineTool({ description: 'fire', execute: async () => { fire(); return await late; } }),
  },
  stages: {
    on_input: async (sc, services) => { await services.memory.appendText({ role: 'user', content: sc.rawMessage }); return sc; },
  },
}));
`

// scriptDir writes a plugin folder running source (with ID set to id)
// under the given interpreter.
func scriptDir(t *testing.T, id, lang, source string, capabilities ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	m := Manifest{ID: id, Capabilities: capabilities}
	switch lang {
	case "python":
		m.Command = []string{"python3", "main.py"}
		source = "ID = " + strconvQuote(id) + "\n" + source
		writeText(t, filepath.Join(dir, "main.py"), source)
	case "typescript":
		m.Command = []string{"node", "main.mjs"}
		source = strings.Replace(source, "serve(definePlugin", "const ID = "+strconvQuote(id)+";\nserve(definePlugin", 1)
		writeText(t, filepath.Join(dir, "main.mjs"), source)
	}
	b, _ := json.Marshal(m)
	writeText(t, filepath.Join(dir, ManifestFile), string(b))
	return dir
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

func writeText(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// scopeFixture is a fixture whose plugins share Hearth's scoped graph,
// document and text memory on a real SQLite database and folder, and
// its knowledge base in a real folder. It returns every graph, document
// and text entry, of every scope and writer (what the knowledge base
// keeps is checked through the plugins' searches).
func scopeFixture(t *testing.T) (*fixture, func() []scopetest.Entry) {
	f := newFixture(t)
	f.eng.LocalChannels = append(f.eng.LocalChannels, "qq") // the groups may call write tools
	ctx := context.Background()
	st := openStore(t, f.data)
	idx := search.NewIndex()
	docs, err := memory.NewDocs(ctx, st, idx)
	if err != nil {
		t.Fatal(err)
	}
	graph, err := memory.NewGraph(ctx, st, idx)
	if err != nil {
		t.Fatal(err)
	}
	text, err := memory.NewText(filepath.Join(f.data, "memory", "text"))
	if err != nil {
		t.Fatal(err)
	}
	kb, err := knowledge.Open(filepath.Join(f.data, "knowledge"), &knowledge.Options{Index: idx})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kb.Close() })
	f.opts.Memory, f.opts.TextMemory, f.opts.DocMemory, f.opts.Knowledge = graph, text, docs, kb
	return f, func() []scopetest.Entry {
		all := scope.Everything()
		var out []scopetest.Entry
		ents, _, err := graph.Entities(ctx, all, "", 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			out = append(out, scopetest.Entry{Kind: "entity", Scope: e.Scope, Writer: e.Writer, Key: e.Name})
		}
		ds, _, err := docs.List(ctx, all, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			out = append(out, scopetest.Entry{Kind: "doc", Scope: d.Scope, Writer: d.Writer, Key: d.ID, Text: d.Content})
		}
		days, err := text.Days(all)
		if err != nil {
			t.Fatal(err)
		}
		for _, day := range days {
			lines, err := text.Read(all, day)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range lines {
				out = append(out, scopetest.Entry{Kind: "text", Scope: l.Scope, Writer: l.Writer, Key: l.Role, Text: l.Content})
			}
		}
		return out
	}
}

// askIn asks in group g of qq, the model making calls in one step, and
// returns the tool results the model read, by call id.
func askIn(t *testing.T, f *fixture, g string, calls ...llmtest.Call) map[string]string {
	t.Helper()
	n := len(f.srv.Requests())
	f.srv.Push(llmtest.Reply{ToolCalls: calls}, llmtest.Reply{Text: "done"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out := f.k.Ask(ctx, kernel.Input{Injection: sdk.Injection{Channel: "qq", ChatID: "group:" + g, GroupID: g, UserID: "u" + g, Text: "turn in " + g}})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	reqs := f.srv.Requests()
	if len(reqs) != n+2 {
		t.Fatalf("%d requests, want %d", len(reqs), n+2)
	}
	got := map[string]string{}
	for _, c := range calls {
		for _, m := range reqs[n+1].Messages {
			if m["role"] == "tool" && m["tool_call_id"] == c.ID {
				got[c.ID], _ = m["content"].(string)
			}
		}
	}
	return got
}

// twoGroupsTwoPlugins is the check over the protocol: plugins a
// and b, each remembering in group 1 and a in group 2, never see each
// other's entries, nor another group's.
func twoGroupsTwoPlugins(t *testing.T, f *fixture, entries func() []scopetest.Entry, a, b string) {
	t.Helper()
	call := func(id, tool, args string) llmtest.Call {
		return llmtest.Call{ID: id, Name: tool, Arguments: args}
	}
	askIn(t, f, "1", call("a1", a+"__remember", `{"fact":"fact-a-1"}`), call("b1", b+"__remember", `{"fact":"fact-b-1"}`))
	askIn(t, f, "2", call("a2", a+"__remember", `{"fact":"fact-a-2"}`))
	got := askIn(t, f, "1", call("ra", a+"__recall", `{}`), call("rb", b+"__recall", `{}`))
	if want := "d:fact-a-1 g:fact-a-1 g:known k:fact-a-1"; got["ra"] != want {
		t.Errorf("%s in group 1 recalls %q, want %q", a, got["ra"], want)
	}
	if want := "d:fact-b-1 g:fact-b-1 g:known k:fact-b-1"; got["rb"] != want {
		t.Errorf("%s in group 1 recalls %q, want %q", b, got["rb"], want)
	}
	got = askIn(t, f, "2", call("ra", a+"__recall", `{}`), call("rb", b+"__recall", `{}`))
	if want := "d:fact-a-2 g:fact-a-2 g:known k:fact-a-2"; got["ra"] != want {
		t.Errorf("%s in group 2 recalls %q, want %q", a, got["ra"], want)
	}
	if got["rb"] != "none" {
		t.Errorf("%s in group 2 recalls %q", b, got["rb"])
	}
	texts := 0
	for _, e := range entries() {
		if e.Scope == scope.Global {
			t.Errorf("an entry written in a group's turn is global: %+v", e)
		}
		if e.Kind == "text" {
			texts++
			if want := "turn in " + strings.TrimPrefix(string(e.Scope), "chat:qq/group:"); e.Text != want {
				t.Errorf("text %q stored in %s", e.Text, e.Scope)
			}
		}
	}
	if texts != 8 { // two plugins' stage handlers, four turns
		t.Errorf("%d text entries, want 8: %+v", texts, entries())
	}
}

func TestTwoGroupsTwoPluginsGoChild(t *testing.T) {
	f, entries := scopeFixture(t)
	ready(t, f.start(t, "alpha", "scopedmem", "memory", "knowledge"))
	ready(t, f.start(t, "beta", "scopedmem", "memory", "knowledge"))
	twoGroupsTwoPlugins(t, f, entries, "alpha", "beta")
	writeAfterReturn(t, f, entries, "alpha")
}

// writeAfterReturn: plugin's tool "later" leaves work behind (a
// goroutine, an asyncio task or a thread in the call's context, a
// promise) that writes to every memory once its call has returned, when
// "fire" lets it; the writes are refused with the named error and
// nothing is stored anywhere.
func writeAfterReturn(t *testing.T, f *fixture, entries func() []scopetest.Entry, plugin string) {
	t.Helper()
	if got := askIn(t, f, "1", llmtest.Call{ID: "l", Name: plugin + "__later", Arguments: `{}`}); got["l"] != "started" {
		t.Fatalf("later: %q", got["l"])
	}
	got := askIn(t, f, "1", llmtest.Call{ID: "f", Name: plugin + "__fire", Arguments: `{}`})
	errs := strings.Split(got["f"], "\n")
	if len(errs) != 4 {
		t.Fatalf("fire: %q", got["f"])
	}
	for _, e := range errs {
		if !strings.Contains(e, "call ended") || !strings.Contains(e, "a write outside the call that started it is refused") {
			t.Errorf("a write after the call returned: %q, want the call-ended error", e)
		}
	}
	for _, e := range entries() {
		if e.Key == "late" || e.Text == "late" {
			t.Errorf("a write after the call returned was stored: %+v", e)
		}
	}
}

func TestTwoGroupsTwoPluginsPythonChild(t *testing.T) {
	needProgram(t, "python3")
	f, entries := scopeFixture(t)
	for _, id := range []string{"pyalpha", "pybeta"} {
		p, err := Start(scriptDir(t, id, "python", scopedPython, "memory", "knowledge"), &f.opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Stop)
		ready(t, p)
	}
	twoGroupsTwoPlugins(t, f, entries, "pyalpha", "pybeta")

	writeAfterReturn(t, f, entries, "pyalpha")

	// A write with a token replayed after its call ended is refused; so
	// is one with another plugin's, and with a made-up one.
	got := askIn(t, f, "1", llmtest.Call{ID: "s", Name: "pyalpha__stash", Arguments: `{}`})
	token := got["s"]
	if len(token) < 20 {
		t.Fatalf("call token %q", token)
	}
	for _, c := range []struct{ plugin, fact, token string }{{"pyalpha", "replayed", token}, {"pybeta", "foreign", token},
		{"pyalpha", "made-up", "7" + token}} {
		args, _ := json.Marshal(map[string]string{"fact": c.fact, "token": c.token})
		got := askIn(t, f, "1", llmtest.Call{ID: "r", Name: c.plugin + "__replay", Arguments: string(args)})
		if !strings.HasPrefix(got["r"], "refused: call ended: memory.commit") {
			t.Errorf("%s's write with %s's token: %q", c.plugin, c.fact, got["r"])
		}
	}
	// Another plugin's token while its call still runs: pyalpha holds
	// its call open until pybeta has used its token.
	dir := t.TempDir()
	out, back := filepath.Join(dir, "out"), filepath.Join(dir, "back")
	for _, fifo := range []string{out, back} {
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	fifos, _ := json.Marshal(map[string]string{"out": out, "back": back})
	got = askIn(t, f, "1", llmtest.Call{ID: "h", Name: "pyalpha__hold", Arguments: string(fifos)},
		llmtest.Call{ID: "g", Name: "pybeta__grab", Arguments: string(fifos)})
	if got["h"] != "held" || !strings.HasPrefix(got["g"], "refused: call ended") {
		t.Fatalf("hold and grab: %q", got)
	}
	for _, e := range entries() {
		if e.Kind == "entity" && (e.Key == "replayed" || e.Key == "foreign" || e.Key == "foreign-live" || e.Key == "made-up") {
			t.Errorf("%s stored in %s with a dead or foreign token", e.Key, e.Scope)
		}
	}
}

func TestTwoGroupsTwoPluginsTypeScriptChild(t *testing.T) {
	needProgram(t, "node")
	f, entries := scopeFixture(t)
	for _, id := range []string{"tsalpha", "tsbeta"} {
		p, err := Start(scriptDir(t, id, "typescript", scopedTypeScript, "memory", "knowledge"), &f.opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Stop)
		ready(t, p)
	}
	twoGroupsTwoPlugins(t, f, entries, "tsalpha", "tsbeta")
	writeAfterReturn(t, f, entries, "tsalpha")
	if got := askIn(t, f, "1", llmtest.Call{ID: "s", Name: "tsalpha__stash", Arguments: `{}`}); len(got["s"]) < 20 {
		t.Fatalf("call token %q", got["s"])
	}
}

// TestCallTokens checks the host's mapping itself: a live token of the
// plugin's own call is its conversation; no token is Global; a write
// with the same token sent by another plugin, after the call ended, or
// made up, is refused, and a read with one acts in Global.
func TestCallTokens(t *testing.T) {
	mem := &scopetest.Memory{}
	serve := func(id string) (*Process, map[string]wire.Handler) {
		p := &Process{name: id, m: &Manifest{ID: id}, opts: Options{Memory: mem, TextMemory: mem, DocMemory: mem, Knowledge: mem}}
		hs := map[string]wire.Handler{}
		p.serveMemory(func(m string, h wire.Handler) { hs[m] = h })
		return p, hs
	}
	a, ha := serve("alpha")
	_, hb := serve("beta")
	g := scope.Chat("qq", "group:1")
	token, end := a.calls.open(g)
	commit := func(hs map[string]wire.Handler, fact, token string) error {
		raw, _ := json.Marshal(wire.CommitParams{Triples: []sdk.Triple{{Subject: fact, Relation: "is", Object: "x"}}, CallToken: token})
		_, err := hs[wire.MethodMemoryCommit](context.Background(), raw)
		return err
	}
	refused := func(err error, what, want string) {
		t.Helper()
		var we *wire.Error
		if !errors.As(err, &we) || we.Code != wire.CodeCallEnded || !strings.Contains(we.Message, want) {
			t.Errorf("%s: %v, want error %d saying %q", what, err, wire.CodeCallEnded, want)
		}
	}
	if err := commit(ha, "own-live", token); err != nil {
		t.Fatal(err)
	}
	if err := commit(ha, "no-token", ""); err != nil {
		t.Fatal(err)
	}
	refused(commit(hb, "foreign-live", token), "another plugin's live token", "call ended: memory.commit")
	refused(commit(ha, "made-up", "x"+token), "a made-up token", "never given")
	refused(commit(ha, "made-up", "99."+token[2:]), "a token not issued yet", "never given")
	end()
	refused(commit(ha, "own-ended", token), "an ended token", "a write outside the call that started it is refused")
	for m, params := range map[string]any{
		wire.MethodMemoryMerge:      wire.MergeParams{Source: "own-live", Target: "no-token", CallToken: token},
		wire.MethodMemoryPurge:      wire.PurgeParams{Criteria: map[string]string{"name": "own-live"}, Mode: "hard", CallToken: token},
		wire.MethodMemoryAppendText: wire.AppendTextParams{TextEvent: sdk.TextEvent{Role: "user", Content: "own-ended"}, CallToken: token},
		wire.MethodMemoryDocInsert:  wire.DocInsertParams{Doc: sdk.Doc{ID: "own-ended", Content: "own-ended"}, CallToken: token},
		wire.MethodMemoryDocRemove:  wire.DocParams{ID: "own-ended", CallToken: token},
		wire.MethodKnowledgeAdd:     wire.KnowledgeParams{Name: "own-ended", Content: "own-ended", CallToken: token},
	} {
		raw, _ := json.Marshal(params)
		_, err := ha[m](context.Background(), raw)
		refused(err, m+" with an ended token", "call ended: "+m)
	}
	if a.calls.count() != 0 {
		t.Fatalf("%d calls left", a.calls.count())
	}
	want := map[string]scope.Scope{"own-live": g, "no-token": scope.Global}
	for _, e := range mem.Entries() {
		if w, ok := want[e.Key]; ok && e.Kind == "entity" {
			if e.Scope != w {
				t.Errorf("%s (by %s) stored in %s, want %s", e.Key, e.Writer, e.Scope, w)
			}
			delete(want, e.Key)
		} else if e.Key != "x" && e.Key != "own-live|is|x" && e.Key != "no-token|is|x" {
			t.Errorf("a refused write was stored: %+v", e)
		}
	}
	if len(want) != 0 {
		t.Errorf("not stored: %v", want)
	}
	// A read with an ended token acts in Global: it sees no-token, not
	// own-live.
	raw, _ := json.Marshal(wire.RecallParams{Query: []string{"own-live", "no-token"}, Depth: 1, CallToken: token})
	res, err := ha[wire.MethodMemoryRecall](context.Background(), raw)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, e := range res.(wire.RecallResult).Entities {
		seen = append(seen, e.Name)
	}
	if slices.Contains(seen, "own-live") || !slices.Contains(seen, "no-token") {
		t.Errorf("a read with an ended token sees %v", seen)
	}
	// A shared plugin reads every writer's entries in its scopes.
	s := &Process{name: "reader", m: &Manifest{ID: "reader", Capabilities: []string{"memory", sdk.CapabilityMemoryShared}},
		opts: Options{Memory: mem}}
	hs := map[string]wire.Handler{}
	s.serveMemory(func(m string, h wire.Handler) { hs[m] = h })
	tok, end2 := s.calls.open(g)
	defer end2()
	raw, _ = json.Marshal(wire.RecallParams{Query: []string{"-"}, Depth: 1, CallToken: tok})
	res, err = hs[wire.MethodMemoryRecall](context.Background(), raw)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range res.(wire.RecallResult).Entities {
		names = append(names, e.Name)
	}
	slices.Sort(names)
	if want := []string{"no-token", "own-live"}; !slices.Equal(names, want) {
		t.Errorf("shared reader recalls %v, want %v", names, want)
	}
}

func FuzzTokenOf(f *testing.F) {
	f.Add([]byte(`{"callToken":"abc","query":["x"]}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"callToken":3}`))
	var c callTokens
	tok, end := c.open(scope.Owner)
	defer end()
	f.Add([]byte(`{"callToken":"` + tok + `"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, st := c.lookup(tokenOf(raw))
		if got != scope.Global && got != scope.Owner || (got == scope.Owner) != (st == tokenLive) {
			t.Fatalf("scope %q, state %d", got, st)
		}
		if got == scope.Owner && !strings.Contains(string(raw), tok) && !strings.Contains(string(raw), `\u`) {
			t.Fatalf("%s maps to the live call", raw)
		}
		if (st == tokenNone) != (tokenOf(raw) == "") || (refusal("m", st) == nil) != (st == tokenNone || st == tokenLive) {
			t.Fatalf("%s: state %d, refusal %v", raw, st, refusal("m", st))
		}
	})
}
