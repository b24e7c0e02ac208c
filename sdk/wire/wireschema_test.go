package wire_test

// The wire has one source: the Go types of the protocol, read here by
// reflection as JSON has them. The TypeScript SDK's declared types
// (sdk/typescript/index.d.ts) are checked against them member by member,
// the string unions against the Go constants, and the member names the
// JavaScript and Python SDKs write and read against the set of wire names.
// The types are named by Go identifier only, through the `wire` import.

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// The directories read, relative to this package's.
const (
	sdkDir = ".."                // package sdk, whose constants the unions list
	tsDir  = "../typescript"     // index.d.ts and index.js
	pyDir  = "../python"         // hearth_plugin.py
	logRec = "a stderr log line" // a log record's reason
)

// message is a method's params and result.
type message struct{ params, result reflect.Type }

func msg[P, R any]() message { return message{reflect.TypeFor[P](), reflect.TypeFor[R]()} }

// none is an empty params or result.
type none = struct{}

// cancelParams are $/cancel's params, unexported in the package.
type cancelParams struct {
	ID int64 `json:"id"`
}

// wireMethods are the protocol's methods, host's and plugin's, with the
// Go types of their params and results: the messages of the wire. The
// types these hold are reached from them.
var wireMethods = map[string]message{
	// The host calls these on a plugin.
	wire.MethodInitialize:         msg[wire.InitializeParams, wire.InitializeResult](),
	wire.MethodToolCall:           msg[wire.ToolCallParams, wire.ToolCallResult](),
	wire.MethodResolveEffect:      msg[wire.ResolveEffectParams, sdk.Assessment](),
	wire.MethodStageRun:           msg[wire.StageRunParams, wire.StageRunResult](),
	wire.MethodHookDecide:         msg[wire.HookDecideParams, sdk.HookDecision](),
	wire.MethodContext:            msg[wire.ContextParams, wire.TextResult](),
	wire.MethodInstructions:       msg[none, wire.TextResult](),
	wire.MethodShutdown:           msg[none, none](),
	wire.MethodToolDescribe:       msg[wire.ToolDescribeParams, wire.TextResult](),
	wire.MethodPreferenceGet:      msg[wire.PreferenceParams, wire.PreferenceResult](),
	wire.MethodPreferenceSet:      msg[wire.PreferenceParams, none](),
	wire.MethodSpeechTranscribe:   msg[wire.SpeechTranscribeParams, wire.TextResult](),
	wire.MethodOCRRecognize:       msg[wire.OCRRecognizeParams, wire.TextResult](),
	wire.MethodProviderListModels: msg[wire.ProviderCallParams, wire.ProviderModelsResult](),
	wire.MethodProviderBalance:    msg[wire.ProviderCallParams, wire.ProviderBalanceResult](),
	wire.MethodPing:               msg[none, string](),
	"$/cancel":                    msg[cancelParams, none](), // a notification, either way
	wire.MethodChannelSend:        msg[wire.ChannelSendParams, wire.ChannelSendResult](),

	// A plugin calls these on the host.
	wire.MethodToolsRegister:      msg[wire.ToolDef, none](),
	wire.MethodStagesRegister:     msg[wire.StageRegistration, none](),
	wire.MethodHooksRegister:      msg[wire.HookRegistration, none](),
	wire.MethodInject:             msg[wire.InjectParams, none](),
	wire.MethodInjectSync:         msg[wire.InjectParams, wire.InjectSyncResult](),
	wire.MethodToolProgress:       msg[wire.ToolProgressParams, none](), // a notification
	wire.MethodChannelsRegister:   msg[sdk.ChannelRegistration, none](),
	wire.MethodChannelsUnregister: msg[wire.ChannelNameParams, none](),
	wire.MethodLLMList:            msg[none, []string](),
	wire.MethodLLMSet:             msg[wire.SourceParams, none](),
	wire.MethodLLMCurrent:         msg[none, string](),
	wire.MethodSettingsGet:        msg[wire.SettingParams, wire.ValueResult](),
	wire.MethodSettingsSet:        msg[wire.SettingParams, none](),
	wire.MethodSettingsList:       msg[wire.SettingParams, []string](),
	wire.MethodSettingsRegister:   msg[sdk.ConfigDef, none](),
	wire.MethodSettingsDefs:       msg[wire.SettingParams, []sdk.ConfigDef](),
	wire.MethodSettingsGetCore:    msg[wire.SettingParams, wire.ValueResult](),
	wire.MethodSettingsSetCore:    msg[wire.SettingParams, none](),
	wire.MethodSettingsListCore:   msg[wire.SettingParams, []string](),
	wire.MethodSettingsGetOther:   msg[wire.SettingParams, wire.ValueResult](),
	wire.MethodSettingsSetOther:   msg[wire.SettingParams, none](),
	wire.MethodSettingsListOther:  msg[wire.SettingParams, []string](),
	wire.MethodSettingsDump:       msg[none, map[string]any](),
	wire.MethodSettingsPlugins:    msg[wire.SettingParams, []string](),
	wire.MethodKVGet:              msg[wire.KVParams, wire.ValueResult](),
	wire.MethodKVSet:              msg[wire.KVParams, none](),
	wire.MethodKVDelete:           msg[wire.KVParams, none](),
	wire.MethodMemoryRecall:       msg[wire.RecallParams, wire.RecallResult](),
	wire.MethodMemoryCommit:       msg[wire.CommitParams, none](),
	wire.MethodMemoryIntrospect:   msg[none, map[string]any](),
	wire.MethodMemoryMerge:        msg[wire.MergeParams, wire.CountResult](),
	wire.MethodMemoryPurge:        msg[wire.PurgeParams, wire.CountResult](),
	wire.MethodMemoryAppendText:   msg[sdk.TextEvent, none](),
	wire.MethodMemoryDocQuery:     msg[wire.SearchParams, []sdk.Doc](),
	wire.MethodMemoryDocInsert:    msg[sdk.Doc, wire.DocParams](),
	wire.MethodMemoryDocRemove:    msg[wire.DocParams, none](),
	wire.MethodMemoryDocStats:     msg[none, map[string]any](),
	wire.MethodKnowledgeSearch:    msg[wire.SearchParams, []sdk.Knowledge](),
	wire.MethodKnowledgeAdd:       msg[wire.KnowledgeParams, none](),
	wire.MethodKnowledgeList:      msg[none, []string](),
}

// wireErrors are the types of the error member and of its data.
var wireErrors = []reflect.Type{reflect.TypeFor[wire.Error](), reflect.TypeFor[wire.VersionErrorData]()}

// envelope are the JSON-RPC 2.0 members around every message, and the
// params of $/cancel.
var envelope = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// direction says who writes a message, which decides what TypeScript's
// optional members must say.
type direction int

const (
	toPlugin   direction = iota // the host writes it: a member the host always sends is not optional
	fromPlugin                  // the plugin writes it: the SDK fills in defaults, any member may be optional
	bothWays                    // both write it; optionality is not checked
)

// tsShapes pairs each interface of index.d.ts that holds wire data with
// its Go type. authorOnly are members a plugin author writes that do not
// go on the wire as themselves; derived are wire members the SDK computes.
var tsShapes = []struct {
	ts         string
	goType     reflect.Type
	dir        direction
	authorOnly map[string]string
	derived    map[string]string
}{
	{ts: "TurnInfo", goType: reflect.TypeFor[sdk.TurnInfo](), dir: toPlugin},
	{ts: "ToolContext", goType: reflect.TypeFor[wire.CallContext](), dir: toPlugin, authorOnly: map[string]string{
		"kv": "the SDK's storage client", "services": "the SDK's services client", "signal": "aborted by $/cancel",
		"progress": "sends tool.progress notifications",
		"provider": "PKU's; rejects: providers are not run yet", "cloud": "PKU's; Hearth has no Cloud",
	}},
	{ts: "Entity", goType: reflect.TypeFor[sdk.Entity](), dir: toPlugin},
	{ts: "Relation", goType: reflect.TypeFor[sdk.Relation](), dir: toPlugin},
	{ts: "RecallResult", goType: reflect.TypeFor[wire.RecallResult](), dir: toPlugin},
	{ts: "Triple", goType: reflect.TypeFor[sdk.Triple](), dir: fromPlugin},
	{ts: "TextEvent", goType: reflect.TypeFor[sdk.TextEvent](), dir: fromPlugin},
	{ts: "Doc", goType: reflect.TypeFor[sdk.Doc](), dir: bothWays},
	{ts: "Knowledge", goType: reflect.TypeFor[sdk.Knowledge](), dir: toPlugin},
	{ts: "ToolAssessment", goType: reflect.TypeFor[sdk.Assessment](), dir: fromPlugin},
	{ts: "HookDecision", goType: reflect.TypeFor[sdk.HookDecision](), dir: fromPlugin},
	{ts: "HookCall", goType: reflect.TypeFor[wire.HookDecideParams](), dir: toPlugin, derived: map[string]string{
		"id":        "the hook's registration id; a plugin has one hook",
		"callToken": "kept by the SDK for the hook's memory requests (currentCallToken)",
	}},
	{ts: "ToolDef", goType: reflect.TypeFor[wire.ToolDef](), dir: fromPlugin, authorOnly: map[string]string{
		"input": "sent as parameters", "resolveEffect": "sent as hasResolveEffect", "execute": "run on tool.call",
	}, derived: map[string]string{
		"dynamicDescription": "whether description is a function",
		"name":               "the tool's key in PluginDef.tools", "plugin": "filled in by the host",
		"parameters": "the JSON Schema of input", "hasResolveEffect": "whether resolveEffect is set",
	}},
	{ts: "PluginDef", goType: reflect.TypeFor[wire.Manifest](), dir: fromPlugin, authorOnly: map[string]string{
		"context": "sent as hasContext", "tools": "sent by tools.register", "stages": "sent by stages.register",
		"guardStages": "sent as guard by stages.register", "decide": "sent by hooks.register", "remote": "a host fills it in for MCP plugins; Hearth runs MCP servers itself",
	}, derived: map[string]string{
		"hasContext": "whether context is set", "dynamicInstructions": "whether instructions is a function",
		"capabilities": "a child process declares its groups in plugin.json",
	}},
	{ts: "PluginLegacy", goType: reflect.TypeFor[sdk.Legacy](), dir: fromPlugin},
	{ts: "PluginTranslation", goType: reflect.TypeFor[sdk.Translation](), dir: fromPlugin, authorOnly: map[string]string{
		"widgets": "PKU's; Hearth shows no widgets yet", "screens": "PKU's; Hearth shows no screens yet",
		"settings": "PKU's settings rows; Hearth shows no screens yet", "commands": "PKU's; Hearth has no prompt commands yet",
		"providers": "PKU's; providers are not run yet", "speech": "PKU's; speech is not run yet",
	}, derived: map[string]string{"extra": "Hearth's own; PKU plugins have none"}},
	{ts: "StageContext", goType: reflect.TypeFor[wire.StageContext](), dir: toPlugin},
	{ts: "ToolCall", goType: reflect.TypeFor[sdk.ToolCall](), dir: toPlugin},
	{ts: "ToolResult", goType: reflect.TypeFor[sdk.ToolResult](), dir: toPlugin},
	{ts: "MemItem", goType: reflect.TypeFor[sdk.MemItem](), dir: toPlugin},
}

// tsUnions pairs each string union of index.d.ts with the Go type whose
// constants it must list.
var tsUnions = []struct {
	ts     string
	goType reflect.Type
}{
	{"ToolEffect", reflect.TypeFor[sdk.Effect]()},
	{"Actor", reflect.TypeFor[sdk.Actor]()},
	{"Stage", reflect.TypeFor[sdk.Stage]()},
	{"Mode", reflect.TypeFor[sdk.Mode]()},
	{"Capability", reflect.TypeFor[sdk.Capability]()},
	{"Verdict", reflect.TypeFor[sdk.Verdict]()},
}

// TestWireTypeScriptDeclarations checks index.d.ts against the Go wire
// types: every wire member declared, nothing declared that is not on the
// wire, the same kind of value, and what the host always sends not
// optional.
func TestWireTypeScriptDeclarations(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(tsDir, "index.d.ts"))
	if err != nil {
		t.Fatal(err)
	}
	ts := parseTS(string(src))
	var c checker
	c.ts = ts
	c.shapes = map[string]reflect.Type{}
	for _, s := range tsShapes {
		c.shapes[s.ts] = s.goType
	}
	c.unions = map[reflect.Type]string{}
	for _, u := range tsUnions {
		c.unions[u.goType] = u.ts
	}
	for _, s := range tsShapes {
		d, ok := ts[s.ts]
		if !ok || !d.isInterface {
			c.errorf("%s: no interface %s in index.d.ts", s.goType, s.ts)
			continue
		}
		c.shape(s.ts, tsMembers(d.body), s.goType, s.dir, s.authorOnly, s.derived)
	}
	consts := goConstants(t)
	for _, u := range tsUnions {
		d, ok := ts[u.ts]
		if !ok || d.isInterface {
			c.errorf("%s: no type %s in index.d.ts", u.goType, u.ts)
			continue
		}
		got := stringLiterals(d.body)
		want := consts[u.goType.Name()]
		for _, v := range want {
			if !slices.Contains(got, v) {
				c.errorf("%s lacks %q (a %s constant)", u.ts, v, u.goType)
			}
		}
		for _, v := range got {
			if !slices.Contains(want, v) {
				c.errorf("%s has %q, which no %s constant is", u.ts, v, u.goType)
			}
		}
	}
	if len(c.errs) > 0 {
		t.Errorf("index.d.ts does not match the wire types (sdk/wire/protocol.go and the sdk types it holds):\n\t%s",
			strings.Join(c.errs, "\n\t"))
	}
}

// jsStrings are JavaScript's quoted and template strings.
var jsStrings = regexp.MustCompile(`'(?:[^'\\]|\\.)*'|` + "`(?:[^`\\\\]|\\\\.)*`")

// TestWireJavaScriptNames checks the member names index.js (and pku.js)
// writes and reads, as object keys and as properties of what the host sent, against
// the wire's names.
func TestWireJavaScriptNames(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(tsDir, "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	pku, err := os.ReadFile(filepath.Join(tsDir, "pku.js")) // the PKU parts' wire forms
	if err != nil {
		t.Fatal(err)
	}
	js := stripComments(string(src) + "\n" + string(pku))
	js = regexp.MustCompile(`(?ms)^import \{[^}]*\} from '[^']*';$`).ReplaceAllString(js, "") // an import over several lines
	js = regexp.MustCompile(`(?m)^(?:import|export) .*$`).ReplaceAllString(js, "")
	js = regexp.MustCompile(`/\^[^\n]*?\$/`).ReplaceAllString(js, "") // a regular expression
	js = jsStrings.ReplaceAllString(js, "''")
	// Commas doubled, so that each key's match has its own.
	keys := strings.ReplaceAll(js, ",", ",,")
	names := matches(keys,
		`[{,]\s*([A-Za-z_]\w*)\s*:`,    // a key
		`[{,]\s*([A-Za-z_]\w*)\s*[,}]`, // a shorthand key
	)
	for _, n := range matches(js, `\b(?:params|c|msg|r|a|d)\??\.(\w+)`) { // a member of what the host sent, or of an answer
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	checkNames(t, "index.js", names, map[string]string{
		"level": logRec, "msg": logRec,
		"resolve": "a pending call's", "reject": "a pending call's", "get": "the services' and kv's methods",
		"set": "the services' and kv's methods", "list": "the services' methods", "delete": "kv's methods",
		"recall": "the services' methods", "commit": "the services' methods", "appendText": "the services' methods",
		"queryDocs": "the services' methods", "insertDoc": "the services' methods", "removeDoc": "the services' methods",
		"search": "the services' methods", "add": "the services' methods",
		"settings": "the services' groups", "memory": "the services' groups", "knowledge": "the services' groups",
		"input": "readline's options", "crlfDelay": "readline's options",
		"unrepresentable": "zod's JSON Schema options", "io": "zod's JSON Schema options",
		"properties": "an empty JSON Schema", "success": "a zod parse result", "data": "a zod parse result",
		"kv": "the ToolContext's, not on the wire", "services": "the ToolContext's, not on the wire",
		"signal": "the ToolContext's, not on the wire", "progress": "the ToolContext's; sends tool.progress",
		"provider": "the ToolContext's; not supported yet", "inject": "the services' methods", "injectSync": "the services' methods",
		"listSources": "the services' methods", "currentSource": "the services' methods", "setSource": "the services' methods",
		"llm":     "the services' groups",
		"headers": "fetch's options in openAITranscribe", "body": "fetch's options in openAITranscribe",
		"Authorization": "an HTTP header in openAITranscribe",
		"fetch":         "SpeechConfig's, the plugin's own fetch", "webSocket": "SpeechConfig's; not supported here",
		"uri": "SpeechAudio's and OcrDocument's, made from the file's name",
	})
}

// TestWirePythonNames checks the string keys hearth_plugin.py writes and
// reads against the wire's names.
func TestWirePythonNames(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(pyDir, "hearth_plugin.py"))
	if err != nil {
		t.Fatal(err)
	}
	py := regexp.MustCompile(`(?s)""".*?"""`).ReplaceAllString(string(src), "")
	py = regexp.MustCompile(`(?m)#.*$`).ReplaceAllString(py, "")
	names := matches(py,
		`[{,]\s*"(\w+)"\s*:`,        // a key
		`\.(?:get|pop)\(\s*"(\w+)"`, // a key read
		`\[\s*"(\w+)"\s*\]`,         // a key read
		`\bk not in \(([^)]*)\)`,    // the keys kept off the wire, checked below
	)
	var keys []string
	for _, n := range names {
		if strings.Contains(n, `"`) {
			keys = append(keys, matches(n, `"(\w+)"`)...)
		} else {
			keys = append(keys, n)
		}
	}
	checkNames(t, "hearth_plugin.py", keys, map[string]string{
		"level": logRec, "msg": logRec, "done": "a pending call's slot",
		"execute": "a tool's, not on the wire", "input": "a tool's, sent as parameters",
		"base_url":      "the config an OCR provider's recognize gets",
		"resolveEffect": "a tool's, sent as hasResolveEffect",
		"tools":         "a plugin's, sent by tools.register", "stages": "a plugin's, sent by stages.register",
		"decide": "a plugin's, sent by hooks.register", "context": "a plugin's, sent as hasContext",
		"properties": "an empty JSON Schema",
		"start":      "a plugin's, run after the handshake", "stop": "a plugin's, run at shutdown",
	})
}

// checkNames fails for each name that is neither a wire member nor in
// local, the names a file uses for something else (with why).
func checkNames(t *testing.T, file string, names []string, local map[string]string) {
	t.Helper()
	onWire := map[string]bool{}
	for _, n := range envelope {
		onWire[n] = true
	}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		if t == nil || seen[t] {
			return
		}
		seen[t] = true
		for _, m := range wireMembers(t) {
			onWire[m.name] = true
			walk(m.elem)
		}
	}
	for _, m := range wireMethods {
		for _, t := range []reflect.Type{m.params, m.result} {
			_, elem := wireKind(t)
			walk(elem)
		}
	}
	for _, t := range wireErrors {
		walk(t)
	}
	var bad []string
	for _, n := range names {
		if _, ok := local[n]; !ok && !onWire[n] {
			bad = append(bad, n)
		}
	}
	for n := range local {
		if !slices.Contains(names, n) {
			bad = append(bad, n+": listed, but no longer used; drop it from the list")
		}
	}
	slices.Sort(bad)
	if len(bad) > 0 {
		t.Errorf("%s uses names that are not members of any wire type (sdk/wire/protocol.go and the sdk types it holds):\n\t%s",
			file, strings.Join(bad, "\n\t"))
	}
}

// matches returns the first group of every match of the patterns, once each.
func matches(s string, patterns ...string) []string {
	var out []string
	for _, p := range patterns {
		for _, m := range regexp.MustCompile(p).FindAllStringSubmatch(s, -1) {
			if !slices.Contains(out, m[1]) {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// goMember is one member of a Go wire type, as JSON has it.
type goMember struct {
	name     string
	kind     string       // string, number, boolean, array, object or any
	optional bool         // left out when empty (omitempty, omitzero)
	named    reflect.Type // the member's Go type, pointers and slices removed
	elem     reflect.Type // the struct it holds, itself or in a pointer, slice or map; nil for none
}

// wireMembers lists t's JSON members, embedded structs inlined.
func wireMembers(t reflect.Type) []goMember {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []goMember
	for i := range t.NumField() {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		options := strings.Split(opts, ",")
		if f.Anonymous && name == "" || slices.Contains(options, "inline") {
			out = append(out, wireMembers(f.Type)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if !ok || name == "" {
			name = f.Name
		}
		name = strings.Trim(name, "'")
		kind, elem := wireKind(f.Type)
		named := f.Type
		for named.Kind() == reflect.Pointer || named.Kind() == reflect.Slice && kind == "array" {
			named = named.Elem()
		}
		out = append(out, goMember{
			name: name, kind: kind, named: named, elem: elem,
			optional: slices.Contains(options, "omitempty") || slices.Contains(options, "omitzero"),
		})
	}
	return out
}

// wireKind is the JSON kind of a Go type, and the struct it holds.
func wireKind(t reflect.Type) (kind string, elem reflect.Type) {
	switch t.Kind() {
	case reflect.Pointer:
		return wireKind(t.Elem())
	case reflect.String:
		return "string", nil
	case reflect.Bool:
		return "boolean", nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number", nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Name() != "" { // json.RawMessage, jsontext.Value
			return "any", nil
		}
		_, elem := wireKind(t.Elem())
		return "array", elem
	case reflect.Map:
		_, elem := wireKind(t.Elem())
		return "object", elem
	case reflect.Struct:
		return "object", t
	}
	return "any", nil
}

// goConstants returns the string constants of package sdk by type name.
func goConstants(t *testing.T) map[string][]string {
	t.Helper()
	entries, err := os.ReadDir(sdkDir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(sdkDir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			typ := ""
			for _, s := range g.Specs {
				v := s.(*ast.ValueSpec)
				if id, ok := v.Type.(*ast.Ident); ok {
					typ = id.Name
				} else if v.Type != nil || len(v.Values) > 0 {
					typ = ""
				}
				for _, val := range v.Values {
					if lit, ok := val.(*ast.BasicLit); ok && lit.Kind == token.STRING && typ != "" {
						s, _ := strconv.Unquote(lit.Value)
						out[typ] = append(out[typ], s)
					}
				}
			}
		}
	}
	return out
}

// checker collects the differences between index.d.ts and the Go types.
type checker struct {
	ts     map[string]tsDecl
	shapes map[string]reflect.Type // interface name → Go type
	unions map[reflect.Type]string // Go string type → union name
	errs   []string
}

func (c *checker) errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

// shape compares the members of one TypeScript object type with a Go type.
func (c *checker) shape(path string, ts map[string]tsMember, gt reflect.Type, dir direction, authorOnly, derived map[string]string) {
	gms := wireMembers(gt)
	onWire := map[string]bool{}
	for _, m := range gms {
		onWire[m.name] = true
		if why, ok := derived[m.name]; ok {
			if _, declared := ts[m.name]; declared {
				c.errorf("%s.%s: declared, but listed as derived (%s)", path, m.name, why)
			}
			continue
		}
		tm, ok := ts[m.name]
		if !ok {
			c.errorf("%s: missing %s: %s (wire member of %s)", path, m.name+map[bool]string{true: "?"}[m.optional], m.kind, gt)
			continue
		}
		if _, ok := authorOnly[m.name]; ok {
			c.errorf("%s.%s: listed as author-only, but it is a wire member of %s", path, m.name, gt)
		}
		if dir == toPlugin && tm.optional != m.optional {
			if m.optional {
				c.errorf("%s.%s: the host leaves it out when empty; declare it optional (%s?)", path, m.name, m.name)
			} else {
				c.errorf("%s.%s: the host always sends it; declare it required, not %s?", path, m.name, m.name)
			}
		}
		c.value(path+"."+m.name, tm.typ, m, dir)
	}
	for _, name := range slices.Sorted(maps.Keys(derived)) {
		if !onWire[name] {
			c.errorf("%s: %s is listed as derived, but %s has no such member", path, name, gt)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(ts)) {
		tm := ts[name]
		if onWire[name] {
			continue
		}
		if _, ok := authorOnly[name]; !ok {
			c.errorf("%s: extra %s: %s (no wire member of %s)", path, name, tm.typ, gt)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(authorOnly)) {
		if _, ok := ts[name]; !ok {
			c.errorf("%s: %s is listed as author-only, but not declared", path, name)
		}
	}
}

// value compares one member's TypeScript type with its Go member.
func (c *checker) value(path, typ string, m goMember, dir direction) {
	kinds := c.kinds(typ)
	if m.kind != "any" && !kinds[m.kind] && !kinds["any"] {
		c.errorf("%s: declared %s, but on the wire it is %s", path, typ, m.kind)
		return
	}
	if u, ok := c.unions[m.named]; ok && !regexp.MustCompile(`\b`+u+`\b`).MatchString(typ) {
		c.errorf("%s: declared %s, but the wire has a %s (declare it %s)", path, typ, m.named, u)
	}
	if m.elem == nil || m.elem.Kind() != reflect.Struct || m.kind == "any" {
		return
	}
	// The struct it holds: an inline object is compared here, a named
	// interface must be the one tsShapes pairs with the struct.
	inner := strings.TrimSpace(typ)
	if m.kind == "array" {
		inner = strings.TrimSuffix(inner, "[]")
	}
	if strings.HasPrefix(inner, "{") {
		c.shape(path, tsMembers(inner[1:len(inner)-1]), m.elem, dir, nil, nil)
		return
	}
	if r := regexp.MustCompile(`^(?:Omit<)?(\w+)`).FindStringSubmatch(inner); r != nil {
		if d, ok := c.ts[r[1]]; ok && d.isInterface {
			if g := c.shapes[r[1]]; g != m.elem {
				c.errorf("%s: declared %s, which is not checked against %s; pair them in tsShapes", path, r[1], m.elem)
			}
		}
	}
}

// kinds are the JSON kinds a TypeScript type admits.
func (c *checker) kinds(typ string) map[string]bool {
	out := map[string]bool{}
	for _, part := range splitTop(typ, '|') {
		part = strings.TrimSpace(part)
		for strings.HasPrefix(part, "(") && closing(part, 0) == len(part)-1 {
			part = strings.TrimSpace(part[1 : len(part)-1])
		}
		switch {
		case part == "":
		case strings.HasPrefix(part, "'"), strings.HasPrefix(part, `"`), part == "string":
			out["string"] = true
		case part == "number", part == "boolean":
			out[part] = true
		case part == "unknown", part == "any":
			out["any"] = true
		case part == "null", part == "undefined", part == "void":
		case strings.Contains(part, "=>"):
			out["function"] = true
		case strings.HasSuffix(part, "[]"), strings.HasPrefix(part, "Array<"):
			out["array"] = true
		case strings.HasPrefix(part, "{"), strings.HasPrefix(part, "Record<"), strings.HasPrefix(part, "Partial<"),
			strings.HasPrefix(part, "Omit<"), len(splitTop(part, '&')) > 1:
			out["object"] = true
		default:
			if d, ok := c.ts[part]; ok {
				if d.isInterface {
					out["object"] = true
				} else {
					for k := range c.kinds(d.body) {
						out[k] = true
					}
				}
			} else {
				out["any"] = true // a type parameter or zod's
			}
		}
	}
	return out
}

// tsDecl is one exported interface or type alias of index.d.ts.
type tsDecl struct {
	isInterface bool
	body        string // between the interface's braces, or the alias's right-hand side
}

// tsMember is one member of a TypeScript object type.
type tsMember struct {
	optional bool
	typ      string // "function" for a method
}

// parseTS finds the exported interfaces and type aliases of a declaration
// file; it knows only the forms index.d.ts uses.
func parseTS(src string) map[string]tsDecl {
	src = stripComments(src)
	out := map[string]tsDecl{}
	re := regexp.MustCompile(`export\s+(interface|type)\s+(\w+)`)
	for _, m := range re.FindAllStringSubmatchIndex(src, -1) {
		kind, name := src[m[2]:m[3]], src[m[4]:m[5]]
		i := m[1]
		if i < len(src) && src[i] == '<' { // type parameters
			i = closing(src, i) + 1
		}
		if kind == "interface" {
			open := i + strings.IndexByte(src[i:], '{')
			out[name] = tsDecl{isInterface: true, body: src[open+1 : closing(src, open)]}
			continue
		}
		eq := i + strings.IndexByte(src[i:], '=')
		end := eq + 1
		for end < len(src) && (src[end] != ';' || depth(src[eq+1:end]) != 0) {
			end++
		}
		out[name] = tsDecl{body: strings.TrimSpace(src[eq+1 : end])}
	}
	return out
}

// tsMembers parses the members of an object type's body.
func tsMembers(body string) map[string]tsMember {
	out := map[string]tsMember{}
	prop := regexp.MustCompile(`^(\w+)(\??)\s*:\s*([\s\S]+)$`)
	method := regexp.MustCompile(`^(\w+)(\??)\s*[<(]`)
	for _, part := range splitTop(strings.ReplaceAll(body, "\n", ";"), ';') {
		part = strings.TrimSpace(part)
		if m := method.FindStringSubmatch(part); m != nil {
			out[m[1]] = tsMember{optional: m[2] == "?", typ: "function"}
		} else if m := prop.FindStringSubmatch(part); m != nil {
			out[m[1]] = tsMember{optional: m[2] == "?", typ: strings.TrimSpace(m[3])}
		}
	}
	return out
}

// stringLiterals returns the quoted strings of a union.
func stringLiterals(union string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`'([^']*)'`).FindAllStringSubmatch(union, -1) {
		out = append(out, m[1])
	}
	return out
}

func stripComments(s string) string {
	s = regexp.MustCompile(`(?s)/\*.*?\*/`).ReplaceAllString(s, "")
	return regexp.MustCompile(`(?m)^\s*//.*$|\s//.*$`).ReplaceAllString(s, "")
}

// splitTop splits s at sep outside brackets.
func splitTop(s string, sep byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == sep && depth(s[:i]) == 0 {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// depth is how many brackets s leaves open; the > of => closes none.
func depth(s string) int {
	d := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{', '(', '[', '<':
			d++
		case '}', ')', ']':
			d--
		case '>':
			if i == 0 || s[i-1] != '=' {
				d--
			}
		}
	}
	return d
}

// closing returns the index of the bracket closing the one at open.
func closing(s string, open int) int {
	for i := open + 1; i <= len(s); i++ {
		if depth(s[open:i]) == 0 {
			return i - 1
		}
	}
	return len(s) - 1
}

// sdkSource is one SDK's source, read for the messages it writes and reads.
type sdkSource struct {
	src     string                  // comments removed
	quoted  *regexp.Regexp          // a string that is not a member's name, if the language has such
	keys    *regexp.Regexp          // a member in an object literal: its name is the first group
	calls   *regexp.Regexp          // a call of a host method with a literal: the method, then the literal's opening brace
	cases   *regexp.Regexp          // the start of the handler of a plugin method: the method
	reads   *regexp.Regexp          // a read of the request's params: the member
	returns *regexp.Regexp          // a returned literal: its opening brace
	funcs   map[string]reflect.Type // functions that build a wire message, by the message
	errs    []string
}

// check compares each message the source writes or reads with its Go type.
func (s *sdkSource) check() {
	for _, m := range s.calls.FindAllStringSubmatchIndex(s.src, -1) {
		method := s.src[m[2]:m[3]]
		msg, ok := wireMethods[method]
		if !ok {
			s.errorf("calls %s, which is not a method of the protocol", method)
			continue
		}
		s.literal(method+" params", msg.params, m[4])
	}
	cases := s.cases.FindAllStringSubmatchIndex(s.src, -1)
	for i, m := range cases {
		method := s.src[m[2]:m[3]]
		end := len(s.src)
		if i+1 < len(cases) {
			end = cases[i+1][0]
		}
		block := s.src[m[1]:end]
		msg, ok := wireMethods[method]
		if !ok {
			s.errorf("handles %s, which is not a method of the protocol", method)
			continue
		}
		for _, r := range s.reads.FindAllStringSubmatch(block, -1) {
			if !hasMember(msg.params, r[1]) {
				s.errorf("%s: reads params.%s, which %s lacks", method, r[1], msg.params)
			}
		}
		for _, r := range s.returns.FindAllStringIndex(block, -1) {
			s.literal(method+" result", msg.result, m[1]+r[1]-1)
		}
	}
	for _, fn := range slices.Sorted(maps.Keys(s.funcs)) {
		t := s.funcs[fn]
		start := regexp.MustCompile(`(?m)^(?:export )?(?:function|def) ` + fn + `\(`).FindStringIndex(s.src)
		if start == nil {
			s.errorf("no function %s, which builds a %s", fn, t)
			continue
		}
		body := s.src[start[1]:] // up to the next line that is not indented
		if next := regexp.MustCompile(`\n\S`).FindStringIndex(body); next != nil {
			body = body[:next[0]]
		}
		if s.quoted != nil {
			body = s.quoted.ReplaceAllString(body, "''")
		}
		for _, k := range s.keys.FindAllStringSubmatch(body, -1) {
			if !hasMember(t, k[1]) {
				s.errorf("%s: writes %s, which %s lacks", fn, k[1], t)
			}
		}
	}
}

// literal checks the top-level members of the object literal whose
// opening brace is at open.
func (s *sdkSource) literal(what string, t reflect.Type, open int) {
	body := s.src[open+1 : closingCode(s.src, open)]
	for _, part := range splitCode(body) {
		part = strings.TrimSpace(part)
		if strings.HasPrefix(part, "...") || strings.HasPrefix(part, "**") || part == "" {
			continue
		}
		name := part // a shorthand member
		if k := memberName.FindStringSubmatch(part); k != nil {
			name = k[1]
		}
		if !regexp.MustCompile(`^\w+$`).MatchString(name) {
			s.errorf("%s: cannot read the member %q", what, part)
		} else if !hasMember(t, name) {
			s.errorf("%s: writes %s, which %s lacks", what, name, t)
		}
	}
}

// memberName is the name of a member of an object literal or a dict.
var memberName = regexp.MustCompile(`^["']?(\w+)["']?\s*:`)

func (s *sdkSource) errorf(format string, args ...any) {
	s.errs = append(s.errs, fmt.Sprintf(format, args...))
}

func hasMember(t reflect.Type, name string) bool {
	return slices.ContainsFunc(wireMembers(t), func(m goMember) bool { return m.name == name })
}

// TestWireJavaScriptMessages checks the messages index.js writes and the
// params it reads, method by method, against their Go types.
func TestWireJavaScriptMessages(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(tsDir, "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	s := &sdkSource{
		quoted:  jsStrings,
		src:     stripComments(string(src)),
		keys:    regexp.MustCompile(`(?m)(?:^|[{,])\s*([A-Za-z_]\w*)\s*:`),
		calls:   regexp.MustCompile(`(?:this\.call|value)\('([\w.]+)',\s*({)`),
		cases:   regexp.MustCompile(`case '([\w.$/]+)':`),
		reads:   regexp.MustCompile(`\bparams\??\.(\w+)`),
		returns: regexp.MustCompile(`return {`),
		funcs: map[string]reflect.Type{
			"wireTool": reflect.TypeFor[wire.ToolDef](), "wireManifest": reflect.TypeFor[wire.Manifest](),
			"wireAssessment": reflect.TypeFor[sdk.Assessment](), "wireDecision": reflect.TypeFor[sdk.HookDecision](),
		},
	}
	s.check()
	if len(s.errs) > 0 {
		t.Errorf("index.js's messages do not match the wire types (sdk/wire/protocol.go):\n\t%s", strings.Join(s.errs, "\n\t"))
	}
}

// TestWirePythonMessages checks the messages hearth_plugin.py writes and
// the params it reads, method by method, against their Go types.
func TestWirePythonMessages(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(pyDir, "hearth_plugin.py"))
	if err != nil {
		t.Fatal(err)
	}
	py := regexp.MustCompile(`(?s)""".*?"""`).ReplaceAllString(string(src), "")
	py = regexp.MustCompile(`(?m)\s*#.*$`).ReplaceAllString(py, "")
	s := &sdkSource{
		src:     py,
		keys:    regexp.MustCompile(`"(\w+)"\s*:`),
		calls:   regexp.MustCompile(`(?:self\.call|self\._conn\.call|self\._value)\("([\w.]+)",\s*({)`),
		cases:   regexp.MustCompile(`if method == "([\w.$/]+)":`),
		reads:   regexp.MustCompile(`\bparams(?:\.get\(|\[)"(\w+)"`),
		returns: regexp.MustCompile(`return {`),
		funcs: map[string]reflect.Type{
			"wire_manifest": reflect.TypeFor[wire.Manifest](), "wire_assessment": reflect.TypeFor[sdk.Assessment](),
			"_wire_decision": reflect.TypeFor[sdk.HookDecision](),
		},
	}
	s.check()
	// A tool's dict goes on the wire as tools.register's params, less
	// the keys kept off it.
	kept := regexp.MustCompile(`\bk not in \(([^)]*)\)`).FindStringSubmatch(py)
	def := regexp.MustCompile(`(?s)def define_tool\(.*?return ({)`).FindStringSubmatchIndex(py)
	if kept == nil || def == nil {
		s.errorf("no define_tool returning a dict, or no keys kept off the wire")
	} else {
		tool := &sdkSource{src: py}
		tool.literal("define_tool", reflect.TypeFor[wire.ToolDef](), def[2])
		for _, e := range tool.errs {
			if k := regexp.MustCompile(`writes (\w+),`).FindStringSubmatch(e); k == nil || !strings.Contains(kept[1], `"`+k[1]+`"`) {
				s.errs = append(s.errs, e)
			}
		}
	}
	if len(s.errs) > 0 {
		t.Errorf("hearth_plugin.py's messages do not match the wire types (sdk/wire/protocol.go):\n\t%s", strings.Join(s.errs, "\n\t"))
	}
}

// splitCode splits an object literal's body at its top-level commas.
func splitCode(s string) []string {
	var out []string
	d, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{', '(', '[':
			d++
		case '}', ')', ']':
			d--
		case ',':
			if d == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// closingCode returns the index of the bracket closing the one at open,
// in code where < and > are operators.
func closingCode(s string, open int) int {
	d := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '{', '(', '[':
			d++
		case '}', ')', ']':
			if d--; d == 0 {
				return i
			}
		}
	}
	return len(s) - 1
}
