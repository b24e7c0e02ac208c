package pluginhost

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/toolcall"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// Offers from the cache (Options.OfferCached, what `hearth ask` uses).
//
// After each handshake of a plugin speaking the Hearth protocol, what it
// registered is kept in <data dir>/plugin_cache/<name>.json, keyed by a
// print of its folder (every file's path, size, modification time and,
// on Linux and macOS, inode and change time, which cannot be set back as
// a modification time can) and its plugin.json. A plugin whose last handshake registered tools and
// nothing else (no stage handler, decision hook, channel, widget or
// injection; no dynamic instructions, context, resolveEffect, dynamic
// description or PKU parts; plugin.json declares no decision hook) can
// then be offered from the cache at once: its manifest is put in force
// and its tools registered with handlers that wait for the child's
// handshake, while the child starts. The first turn does not wait for it.
//
// Safety:
//   - The plugin is still suspended as a possible guard until its
//     handshake (Start): every tool call of the turn, whoever's, is held
//     until then; its decision hooks, if it now has any, decide, and a
//     call its new before_toolcall handler never saw is refused (the
//     policy engine's stand-in hook), never run unguarded.
//   - When the handshake ends its real tools replace the cached ones in
//     one change of the registry. A call of a cached tool runs only when
//     the plugin registered the same definition under the same manifest;
//     otherwise it fails with an error the model reads and the real
//     tools are offered from the next request on.
//
//   - A turn that began before the handshake ended may have run its
//     on_input, pre_action, post_action or before_output stages without
//     handlers the plugin turns out to register (its files did not change,
//     but what it registers depends on more: its settings, its data
//     folder). Stand-ins at those stages note which ran before the
//     handshake; the one at before_output waits for the handshake (up to
//     its deadline) and, when the plugin registered a guard handler
//     (RegisterGuardStage) of a stage the turn ran without it, withholds
//     the answer, as a guard that cannot run does. A plain handler missed
//     so is logged, as one whose plugin is down.
//
// What a stale cache cannot undo: the first request of such a turn was
// sent to the model before an on_input or pre_action handler the plugin
// now has could change it; only its answer is withheld.

// offerVersion changes when the record's meaning does.
const offerVersion = 3

// saveOfferAfter is how long after a handshake its record is written,
// unless the plugin is stopped before.
const saveOfferAfter = 2 * time.Second

// maxPrintFiles bounds the folder walk of offerPrint: a bigger folder is
// never offered from the cache (its print would cost more than it saves).
const maxPrintFiles = 2000

// maxOfferBytes bounds a record read back: a bigger file is not one
// Hearth wrote for a plugin it would offer, and is not read.
const maxOfferBytes = 8 << 20

// readOffer reads the record at path, up to maxOfferBytes.
func readOffer(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if st, err := f.Stat(); err == nil && st.Size() <= maxOfferBytes {
		// One allocation of the record's size: io.ReadAll's growth from
		// 512 bytes copied a 1,000-tool record a dozen times at each start.
		buf.Grow(int(st.Size()) + bytes.MinRead)
	}
	_, err = buf.ReadFrom(io.LimitReader(f, maxOfferBytes+1))
	if err == nil && buf.Len() > maxOfferBytes {
		err = errors.New("plugin cache record too big")
	}
	return buf.Bytes(), err
}

// offerRecord is what a handshake registered, as kept in the cache.
type offerRecord struct {
	Version  int             `json:"version"`
	Print    string          `json:"print"`
	Plain    bool            `json:"plain"`              // tools and nothing else
	Manifest json.RawMessage `json:"manifest,omitempty"` // the wire.Manifest sent at initialize
	Tools    []cachedTool    `json:"tools,omitempty"`
}

// cachedTool is a tool of the record: its definition, whose parameters
// are its schema's JSON as the host compiled it (toolcall.SchemaJSON),
// read back without decoding it (Parameters shadows the definition's).
type cachedTool struct {
	wire.ToolDef
	Parameters json.RawMessage `json:"parameters"`
}

// cached returns def as the record keeps it.
func cached(def wire.ToolDef) (cachedTool, error) {
	raw, err := toolcall.SchemaJSON(def.Parameters)
	def.Parameters = nil
	return cachedTool{ToolDef: def, Parameters: raw}, err
}

// same reports whether def is what c records.
func (c cachedTool) same(def wire.ToolDef) bool {
	d, err := cached(def)
	if err != nil {
		return false
	}
	a, erra := json.Marshal(c)
	b, errb := json.Marshal(d)
	return erra == nil && errb == nil && bytes.Equal(a, b)
}

// offerPath is where the record of plugin name is kept.
func offerPath(dataDir, name string) string {
	return filepath.Join(dataDir, "plugin_cache", url.PathEscape(name)+".json")
}

// offerPrint is the print of the plugin folder and plugin.json (and the
// program plugin.json names, when outside the folder): "" when the folder
// is too big or cannot be read.
func offerPrint(dir string, m *Manifest) string {
	h := sha256.New()
	fmt.Fprintf(h, "v%d\n%s\n", offerVersion, fingerprint(dir, m))
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if n++; n > maxPrintFiles {
			return errors.New("too many files")
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00%o\x00%s\n", path, info.Size(), info.ModTime().UnixNano(), info.Mode(), changeStamp(info))
		return nil
	})
	if err != nil {
		return ""
	}
	for _, a := range m.Command { // the program, which may be outside the folder (fingerprint)
		if !filepath.IsAbs(a) {
			a = filepath.Join(dir, a)
		}
		if info, err := os.Stat(a); err == nil && info.Mode().IsRegular() {
			fmt.Fprintf(h, "%s\x00%s\n", a, changeStamp(info))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// runRecord collects what one handshake registers.
type runRecord struct {
	mu    sync.Mutex
	tools []wire.ToolDef // encoded once the plugin runs (saveOffer)
	other bool           // registered something besides tools
	// collect, while an offer stands, keeps the tools registered to
	// replace the offered ones at the end of the handshake.
	collect bool
	stages  []sdk.Stage // the stages of its stage handlers
	defs    []sdk.ToolDef
	hs      []sdk.RawToolHandler
	// asCached is how many tools the handshake registered when it
	// registered exactly what the cache record it was offered from holds
	// (and nothing else); -1 otherwise. While it still has those alone,
	// saveOffer has nothing new to write.
	asCached int
}

// tool records a tool registration. It reports whether the tool was
// kept for the end of the handshake (collect) rather than to register
// now.
func (r *runRecord) tool(def wire.ToolDef, d sdk.ToolDef, h sdk.RawToolHandler) (kept bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if def.HasResolveEffect || def.DynamicDescription {
		r.other = true
	}
	r.tools = append(r.tools, def)
	if r.collect {
		r.defs, r.hs = append(r.defs, d), append(r.hs, h)
	}
	return r.collect
}

// refused forgets a tool the host refused to register: it is not
// offered at the next start.
func (r *runRecord) refused(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := slices.IndexFunc(r.tools, func(d wire.ToolDef) bool { return d.Name == name })
	if i >= 0 && !r.collect {
		r.tools = slices.Delete(r.tools, i, i+1)
	}
}

// stage records a stage handler the handshake registered.
func (r *runRecord) stage(s sdk.Stage) {
	r.mu.Lock()
	if !slices.Contains(r.stages, s) {
		r.stages = append(r.stages, s)
	}
	r.mu.Unlock()
}

// taint records a registration that makes the plugin needed before a
// turn (a stage handler, a hook, a channel...).
func (r *runRecord) taint() {
	r.mu.Lock()
	r.other = true
	r.mu.Unlock()
}

// registersBeyondTools lists the host methods that make a plugin more
// than a set of tools.
var registersBeyondTools = map[string]bool{
	wire.MethodStagesRegister: true, wire.MethodHooksRegister: true, wire.MethodChannelsRegister: true,
	wire.MethodInject: true, wire.MethodInjectSync: true, wire.MethodWidgetsSet: true,
}

// plainManifest reports whether the manifest sent at initialize needs the
// plugin before a turn (dynamic instructions or context, PKU parts).
func plainManifest(w *wire.Manifest) bool {
	if w == nil {
		return true
	}
	pku, err := json.Marshal(w.PKUManifest)
	return err == nil && !w.HasContext && !w.DynamicInstructions && string(pku) == "{}"
}

// offer is a plugin's cached registration, offered while it starts.
type offer struct {
	manifest json.RawMessage       // the cached manifest, as sent at initialize
	cached   map[string]cachedTool // the cached tools, by name
	settled  chan struct{}         // closed when the first handshake ended, either way
	once     sync.Once
	// Set before settled is closed: whether the handshake registered the
	// same manifest and nothing but tools, and its tools by name.
	same   bool
	real   map[string]realTool
	guards []sdk.Stage // the guard handlers' stages the handshake registered
	failed error       // why the handshake did not end, when it did not
	plain  []sdk.Stage // and those of its other stage handlers

	mu     sync.Mutex
	missed map[*sdk.StageContext][]sdk.Stage // stages turns ran before settled
}

// realTool is a tool registered by the handshake.
type realTool struct {
	def  wire.ToolDef
	h    sdk.RawToolHandler
	same bool // def is what the cache record holds for the name
}

// settle ends the wait of the calls of the cached tools.
func (o *offer) settle(same bool, real map[string]realTool, guards, plain []sdk.Stage) {
	o.once.Do(func() {
		o.same, o.real, o.guards, o.plain = same, real, guards, plain
		close(o.settled)
	})
}

// fail ends the wait of the calls of the cached tools when the first
// handshake did not end (err says why; nil for a plugin stopped first),
// after running withdraw, so that a call that learns of the failure
// finds the cached tools no longer offered. After a handshake that ended
// it does nothing.
func (o *offer) fail(err error, withdraw func()) {
	if err == nil {
		err = errors.New("it was stopped before it started")
	}
	o.once.Do(func() {
		withdraw()
		o.failed = err
		close(o.settled)
	})
}

// offerWatched are the stages a turn may run before the handshake ends
// whose handlers could have changed or refused it (before_toolcall is
// the policy engine's: calls are held for the handshake).
var offerWatched = []sdk.Stage{sdk.StageOnInput, sdk.StagePreAction, sdk.StagePostAction, sdk.StageBeforeOutput, sdk.StageAfterOutput}

// offerMissedText withholds an answer whose turn ran before a plugin
// offered from the cache was up, without guard handlers it turned out to
// have (both verbs name the plugin's id).
const offerMissedText = "The plugin %s, which checks messages, was still starting when this message was handled, so its checks did not see it and the answer is not shown. Please ask again.\n" +
	"插件 %s 负责检查消息，处理这条消息时它还在启动，没有检查到这条消息，因此不显示回答。请再问一次。"

// standIn is the offer's handler of stage (offerWatched): it notes a
// stage a turn ran before the handshake ended and, at before_output,
// waits for the handshake and withholds the answer of a turn that ran a
// stage without a guard handler the plugin registered.
func (p *Process) standIn(o *offer, stage sdk.Stage) sdk.StageHandler {
	return func(sc *sdk.StageContext) error {
		o.mu.Lock()
		if !o.isSettled() {
			if o.missed == nil {
				o.missed = map[*sdk.StageContext][]sdk.Stage{}
			}
			o.missed[sc] = append(o.missed[sc], stage)
		}
		missed := o.missed[sc]
		if stage == sdk.StageAfterOutput || (stage == sdk.StageBeforeOutput && sc.Response != nil) {
			delete(o.missed, sc) // the turn is done, or ends without an answer of the model's
		}
		o.mu.Unlock()
		if stage != sdk.StageBeforeOutput || len(missed) == 0 || sc.Response != nil {
			return nil
		}
		t := time.NewTimer(p.opts.HandshakeTimeout)
		defer t.Stop()
		select {
		case <-o.settled:
		case <-t.C:
			return nil // it did not start: as any plugin that fails its handshake, it does not apply
		}
		for _, st := range missed {
			if slices.Contains(o.guards, st) {
				sc.SetResponse(fmt.Sprintf(offerMissedText, p.m.ID, p.m.ID))
				return nil
			}
			if slices.Contains(o.plain, st) {
				p.log.Warn("a turn ran a stage while the plugin, offered from the cache, was starting: its handler did not see it", "stage", st)
			}
		}
		return nil
	}
}

// isSettled reports whether the first handshake ended.
func (o *offer) isSettled() bool {
	select {
	case <-o.settled:
		return true
	default:
		return false
	}
}

// wait waits for the handshake; it reports whether it ended in time.
func (o *offer) wait(ctx context.Context) error {
	select {
	case <-o.settled:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// offering reports whether the plugin's cached tools are offered and
// its first handshake has not ended yet.
func (p *Process) offering() bool {
	return p.offer != nil && !p.offer.isSettled()
}

// offered reports whether Start offered the plugin's cached tools:
// WaitReady need not wait for it.
func (p *Process) offered() bool { return p.offer != nil }

// confirmOffer ends an offer at the end of a handshake: the tools the
// handshake registered replace the offered ones in one change, and the
// calls waiting for it go on.
func (p *Process) confirmOffer(rec *runRecord, w *wire.Manifest) {
	rec.mu.Lock()
	rec.collect = false
	defs, hs, wdefs := rec.defs, rec.hs, rec.tools
	rec.mu.Unlock()
	real := make(map[string]realTool, len(defs))
	// A tool registered as the record has it keeps the schema JSON the
	// record holds, compiled then, and is compiled again at its first
	// call, not now: confirming a 1,000-tool plugin's offer would
	// otherwise compile every schema, which a turn's answer waits for.
	schemas := make([]json.RawMessage, len(defs))
	asCached := len(defs) == len(p.offer.cached)
	for i, d := range defs {
		rt := realTool{def: wdefs[i], h: hs[i]}
		if c, ok := p.offer.cached[d.Name]; ok && c.same(wdefs[i]) {
			schemas[i], rt.same = c.Parameters, true
		} else {
			asCached = false
		}
		real[d.Name] = rt
	}
	asCached = asCached && len(real) == len(p.offer.cached) // a name registered twice is not the record
	for _, err := range p.opts.Host.OfferRemoteTools(p.name, defs, schemas, hs) {
		p.log.Warn("plugin tool not registered", "err", err)
	}
	p.mu.Lock()
	guards := slices.Clone(p.runGuardStages)
	p.mu.Unlock()
	rec.mu.Lock()
	plain := slices.Clone(rec.stages)
	rec.mu.Unlock()
	same := p.offer.sameOffer(rec, w)
	rec.mu.Lock()
	if rec.asCached = -1; same && asCached && len(rec.tools) == len(defs) {
		rec.asCached = len(defs)
	}
	rec.mu.Unlock()
	p.offer.settle(same, real, guards, plain)
}

// loadOffer returns the plugin's usable cache record, or nil.
func (p *Process) loadOffer() *offerRecord {
	if !p.opts.OfferCached || p.m.Xbot() || p.m.Script() || p.m.declaresHook() {
		return nil
	}
	b, err := readOffer(offerPath(p.opts.DataDir, p.name))
	if err != nil {
		return nil
	}
	var rec offerRecord
	// json v2 (go-json-experiment, the wire's codec) reads a 1,000-tool
	// record in half encoding/json's time; what it refuses and encoding/json
	// took (a name twice, invalid UTF-8) encoding/json never writes.
	if jsonv2.Unmarshal(b, &rec) != nil || rec.Version != offerVersion || !rec.Plain {
		return nil
	}
	if rec.Print == "" || rec.Print != p.print {
		return nil
	}
	return &rec
}

// applyOffer offers the plugin's cached tools, when it has a usable
// record: its manifest in force, and its tools registered with handlers
// that wait for the handshake. It reports whether it did.
func (p *Process) applyOffer() bool {
	rec := p.loadOffer()
	if rec == nil {
		return false
	}
	var w *wire.Manifest
	if len(rec.Manifest) > 0 && json.Unmarshal(rec.Manifest, &w) != nil {
		return false
	}
	defs := make([]sdk.ToolDef, 0, len(rec.Tools))
	schemas := make([]json.RawMessage, 0, len(rec.Tools))
	hs := make([]sdk.RawToolHandler, 0, len(rec.Tools))
	o := &offer{manifest: rec.Manifest, settled: make(chan struct{}), cached: make(map[string]cachedTool, len(rec.Tools))}
	for _, def := range rec.Tools {
		if len(def.Parameters) == 0 {
			return false // not what saveOffer writes: every tool has its schema
		}
		o.cached[def.Name] = def
		schemas = append(schemas, def.Parameters)
		d := def.Definition()
		if d.Timeout == 0 {
			d.Timeout = p.m.ToolTimeout()
		}
		defs = append(defs, d)
		hs = append(hs, p.offeredTool(o, def))
	}
	if err := p.opts.Host.SetManifest(p.name, p.manifestOf(w)); err != nil {
		return false
	}
	if errs := p.opts.Host.OfferRemoteTools(p.name, defs, schemas, hs); len(errs) > 0 {
		p.opts.Host.ReplaceRemoteTools(p.name, nil, nil)
		return false
	}
	for _, stage := range offerWatched {
		p.opts.Host.RegisterStage(p.name, stage, false, p.standIn(o, stage))
	}
	p.offer = o
	return true
}

// manifestOf is the manifest applyManifest puts in force for a plain w.
func (p *Process) manifestOf(w *wire.Manifest) sdk.Manifest {
	m := sdk.Manifest{ID: p.name, Name: p.name, Version: "0.0.0"}
	if w != nil {
		m = w.Manifest
		m.InstructionsFunc, m.Context = nil, nil
	}
	m.DefaultModes = stricterModes(m.DefaultModes, p.m.DefaultModes)
	return m
}

// offeredTool is the handler of a cached tool: it waits for the
// handshake, then runs the plugin's tool if the handshake registered it
// as it was offered.
func (p *Process) offeredTool(o *offer, c cachedTool) sdk.RawToolHandler {
	name := c.Name
	return func(ctx context.Context, tc *sdk.ToolContext, args map[string]any, in json.RawMessage) (any, error) {
		if err := o.wait(ctx); err != nil {
			return nil, fmt.Errorf("plugin %s did not start in time: %w", p.m.ID, err)
		}
		if o.failed != nil {
			return nil, fmt.Errorf("not run: plugin %s did not start: %w", p.m.ID, o.failed)
		}
		rt, ok := o.real[name]
		if !o.same || !ok || !rt.same {
			return nil, fmt.Errorf("not run: plugin %s changed since its tools were listed (%s is not what it offered); its current tools are listed from the next request on", p.m.ID, name)
		}
		return rt.h(ctx, tc, args, in)
	}
}

// saveOffer keeps what the handshake registered, for the next start.
func (p *Process) saveOffer(rec *runRecord, w *wire.Manifest) {
	if p.print == "" {
		return
	}
	rec.mu.Lock()
	unchanged := rec.asCached > 0 && rec.asCached == len(rec.tools) && !rec.other
	rec.mu.Unlock()
	if unchanged {
		return // the record it was offered from says the same
	}
	man, err := json.Marshal(w)
	if err != nil {
		return
	}
	rec.mu.Lock()
	out := offerRecord{Version: offerVersion, Print: p.print, Plain: !rec.other && plainManifest(w) && !p.m.declaresHook(),
		Manifest: man, Tools: make([]cachedTool, 0, len(rec.tools))}
	for _, def := range rec.tools {
		c, err := cached(def)
		if err != nil {
			continue // refused at registration
		}
		out.Tools = append(out.Tools, c)
	}
	rec.mu.Unlock()
	b, err := json.Marshal(out)
	if err != nil {
		return
	}
	path := offerPath(p.opts.DataDir, p.name)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		p.log.Debug("plugin cache not written", "err", err)
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".offer-*")
	if err != nil {
		p.log.Debug("plugin cache not written", "err", err)
		return
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
	}
}

// sameOffer reports whether the handshake registered what was offered:
// the same manifest, and nothing beyond tools.
func (o *offer) sameOffer(rec *runRecord, w *wire.Manifest) bool {
	man, err := json.Marshal(w)
	if err != nil || !bytes.Equal(man, o.manifest) {
		return false
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return !rec.other && plainManifest(w)
}

// runRecord returns the record of the current run's handshake.
func (p *Process) runRecord() *runRecord {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rec == nil {
		p.rec = &runRecord{}
	}
	return p.rec
}
