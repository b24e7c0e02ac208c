package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hearth-agent/hearth/internal/names"
	"github.com/hearth-agent/hearth/internal/scaffold"
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// Host is what a process plugin registers into; *kernel.Kernel has it.
type Host interface {
	RegisterTool(plugin string, def sdk.ToolDef, h sdk.RawToolHandler) error
	// RegisterRemoteTool registers a tool whose handler returns soon
	// after its context ends (a call over the plugin's connection).
	RegisterRemoteTool(plugin string, def sdk.ToolDef, h sdk.RawToolHandler) error
	// ReplaceRemoteTools swaps all of plugin's tools for defs (handlers[i]
	// runs defs[i]) at once: no call in between finds neither.
	ReplaceRemoteTools(plugin string, defs []sdk.ToolDef, handlers []sdk.RawToolHandler) []error
	// OfferRemoteTools is ReplaceRemoteTools for tools kept from an
	// earlier run: schemas[i] is defs[i]'s schema as it compiled then
	// (defs[i].Parameters is not read), compiled again at its tool's
	// first call (offer.go); a nil schemas[i] is compiled from
	// defs[i].Parameters now.
	OfferRemoteTools(plugin string, defs []sdk.ToolDef, schemas []json.RawMessage, handlers []sdk.RawToolHandler) []error
	RegisterStage(plugin string, stage sdk.Stage, own bool, h sdk.StageHandler)
	RegisterDecisionHook(plugin string, h sdk.DecisionHook)
	// Inject and InjectSync take the plugin's name from the host side,
	// never from the plugin; SetCapabilities tells the kernel the groups
	// plugin.json declares (input.channels, input.user matter there).
	Inject(plugin string, in sdk.Injection) error
	InjectSync(ctx context.Context, plugin string, in sdk.Injection) (string, error)
	SetCapabilities(plugin string, groups []string)
	// SetManifest applies the plugin's manifest as for a compiled-in
	// plugin; an error wrapping kernel.ErrHidden hides the plugin.
	SetManifest(plugin string, m sdk.Manifest) error
	// Withdraw removes all the plugin registered, its manifest and hooks:
	// the plugin was stopped on purpose.
	Withdraw(plugin string)
	// Suspend withdraws the tools and stage handlers of a plugin that is
	// down, and replaces its decision hooks by a stand-in that refuses
	// (after waiting up to the hook deadline, with hold) until
	// ResumeHooks or Withdraw.
	Suspend(plugin, reason string, hold bool)
	// SuspendHooks is Suspend for a plugin that registered nothing yet.
	SuspendHooks(plugin, reason string, hold bool)
	ResumeHooks(plugin string)
}

// Options tune the supervisor. Zero values mean the defaults in brackets;
// a nil *Options is all defaults, which Start refuses for want of a Host.
type Options struct {
	Host     Host
	LLM      sdk.LLMAPI        // for plugins declaring the llm group; nil refuses
	Settings *settings.Service // settings and kv; nil refuses

	// The memory and knowledge services; nil answers "unavailable". A
	// plugin's requests act in its own view (scope.For): itself as the
	// writer, in the conversation of the call it serves (calltoken.go),
	// reading every writer's entries when plugin.json declares
	// "memory.shared".
	Memory     scope.Graph
	TextMemory scope.Text
	DocMemory  scope.Docs
	Knowledge  scope.Knowledge
	// MCPAuth gives remote MCP servers their OAuth handler; nil means
	// static headers only.
	MCPAuth MCPAuthFunc
	Log     *slog.Logger // the host log; the plugin's logs go here with plugin=<id>
	DataDir string       // the plugin's data directory is DataDir/plugin_data/<id>
	// Names is where plugin names are claimed; nil means the Host's
	// (a Names method, as *kernel.Kernel has), or else a registry of
	// these options' own.
	Names *names.Registry
	// NameOwners reads which plugin folder each name is bound to in the
	// database; NewManager sets it to its store. Nil means a PKU legacy
	// id's settings are never carried over (pku_legacy.go).
	NameOwners NameOwners
	// Policy is where the owner's tool modes are kept, for carrying a
	// PKU legacy tool's mode to its new tool (pku_legacy_tools.go); the
	// app sets it to its policy engine. Nil carries none.
	Policy LegacyPolicy

	HandshakeTimeout time.Duration // [10s] from start to the end of initialize
	StageTimeout     time.Duration // [10s] for one stage handler or decision hook
	PingInterval     time.Duration // [15s] between liveness pings
	PingTimeout      time.Duration // [5s] for a ping's answer; no answer restarts
	GracePeriod      time.Duration // [3s] after shutdown, and again after SIGTERM
	BackoffMin       time.Duration // [500ms] first restart delay, doubled per crash
	BackoffMax       time.Duration // [30s]
	HostVersion      string
	// OfferCached offers a plugin's tools from the cache of its last
	// handshake while it starts, when its files did not change and it
	// registered nothing but tools (offer.go); WaitReady then does not
	// wait for it. Off: every start waits for the handshake's own tools.
	OfferCached bool
	// Widgets holds the plugins' web widgets (webuiboard.go); nil means
	// a board of these options' own.
	Widgets *WidgetBoard
	// SOLoader is the program .so plugins run in (cmd/hearth-soload);
	// empty means the one next to hearth, or else one built from
	// HearthSrc (empty: the checkout hearth was built from) on first
	// need; see soload.go.
	SOLoader  string
	HearthSrc string
}

// withDefaults returns a copy of o (the zero Options for nil) with the
// defaults set.
func (o *Options) withDefaults() Options {
	var v Options
	if o != nil {
		v = *o
	}
	v.defaults()
	return v
}

func (o *Options) defaults() {
	set := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	set(&o.HandshakeTimeout, 10*time.Second)
	set(&o.StageTimeout, 10*time.Second)
	set(&o.PingInterval, 15*time.Second)
	set(&o.PingTimeout, 5*time.Second)
	set(&o.GracePeriod, 3*time.Second)
	set(&o.BackoffMin, 500*time.Millisecond)
	set(&o.BackoffMax, 30*time.Second)
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.HostVersion == "" {
		o.HostVersion = "dev"
	}
	if o.Widgets == nil {
		o.Widgets = NewWidgetBoard()
	}
	if o.Names == nil {
		if h, ok := o.Host.(interface{ Names() *names.Registry }); ok {
			o.Names = h.Names()
		} else {
			o.Names = names.New()
		}
	}
}

// State is where a process plugin is in its life.
type State string

// The states.
const (
	Starting State = "starting"
	Running  State = "running"
	Backoff  State = "waiting to restart"
	Failed   State = "failed" // crashed and not restarted (AutoRestart off)
	Stopped  State = "stopped"
)

// Status is what the user can see of a plugin.
type Status struct {
	ID        string
	State     State
	PID       int
	Restarts  int
	LastError string
	Stderr    []string // the last lines the plugin wrote to stderr
	// PKU is what the PKU harness parts of its manifest declared
	// (preferences, data sources, providers, speech, OCR); nil for none.
	PKU *wire.PKUManifest
	// Name and Description are the manifest's, each followed by its
	// English translation (i18n.en) when the plugin gave one: "天气 / Weather".
	Name, Description string
}

// Process is one supervised plugin process.
type Process struct {
	m    *Manifest
	name string // the name tools are registered under
	dir  string
	opts Options
	log  *slog.Logger

	claim *names.Claim // holds name while the process is supervised

	stderr *ring

	mu         sync.Mutex
	state      State
	pid        int
	restarts   int
	lastErr    string
	ready      chan struct{} // closed when running; replaced on restart
	stop       chan struct{}
	done       chan struct{}
	stopOnce   sync.Once
	autoStart  bool
	guards     bool          // it guards calls: declared, or registered a hook
	hooks      int           // decision hooks registered in this run
	restarting bool          // stopped for a reload: a guard stays suspended
	changed    chan struct{} // closed and replaced when Status changes; tests wait on it

	mcp *mcpServer // set for an MCP server (see StartMCP)

	pku  atomic.Pointer[pkuRun]    // the PKU parts of this run's manifest (pku.go)
	conn atomic.Pointer[wire.Conn] // this run's connection once its handshake is done (onremove.go)
	// Guard stage handlers (guardstage.go): those of this run's
	// handshake, those of the last run that finished one, and a count
	// of finished handshakes that retires stand-ins.
	runGuardStages, guardStages []sdk.Stage
	guardGen                    atomic.Int64
	toolNames                   []string // tools registered in this run, until applyPKU

	calls callTokens // the calls running for a turn, for memory.* and knowledge.* (calltoken.go)

	unanswered bool         // an xbot plugin left activate unanswered: WaitReady no longer waits
	print      string       // offerPrint of the folder at Start; "" keeps no cache
	offer      *offer       // the cached tools offered while the first run starts (offer.go)
	rec        *runRecord   // what this run's handshake registers; p.mu
	widgets    *xbotWidgets // an xbot script plugin's widget outputs
}

// Start loads dir/plugin.json, claims the plugin's name and starts
// supervising the plugin. It returns at once; WaitReady waits for the
// handshake. A name that is reserved or held by another plugin is refused
// (the error wraps names.ErrReserved or names.ErrTaken) and nothing runs.
func Start(dir string, opts *Options) (*Process, error) {
	m, err := LoadManifest(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", dir, ErrNoManifest)
	}
	if err != nil {
		return nil, err
	}
	return start(dir, m, opts)
}

// start is Start with the manifest read (or made, for a .so folder).
func start(dir string, m *Manifest, opts *Options) (*Process, error) {
	o := opts.withDefaults()
	if o.Host == nil {
		return nil, errors.New("pluginhost: Options.Host is nil")
	}
	claim, err := o.Names.Claim(m.PluginName(), owner(dir, m))
	if err != nil {
		return nil, fmt.Errorf("plugin %q in %s not started: %w", m.ID, dir, err)
	}
	p := &Process{
		m: m, name: m.PluginName(), claim: claim, dir: dir, opts: o, log: o.Log.With("plugin", m.PluginName()),
		stderr: newRing(50), state: Starting,
		ready: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{}),
		autoStart: true, guards: m.declaresHook(), print: offerPrint(dir, m),
	}
	// Until its first handshake says whether it guards calls, any plugin
	// may be a guard: calls are held (then refused) until it ends. A
	// plugin that fails before it, and declares no hook, is released.
	o.Host.SuspendHooks(p.name, "it is starting", true)
	p.applyOffer() // after the suspension: a stale cache cannot hide a guard
	p.rememberUnanswered()
	if m.Xbot() || m.Script() {
		p.refuseXbotUI()
	}
	go p.supervise()
	return p, nil
}

// ID returns the plugin's id.
func (p *Process) ID() string { return p.m.ID }

// Status returns the plugin's state, restarts, last error and recent
// stderr.
func (p *Process) Status() Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	return Status{ID: p.m.ID, State: p.state, PID: p.pid, Restarts: p.restarts, LastError: p.lastErr, Stderr: p.stderr.lines(),
		PKU: p.PKU(), Name: p.display().name, Description: p.display().description}
}

// statusChange returns the status and a channel closed at its next
// change (of state, pid, restarts or last error), for tests to wait on.
func (p *Process) statusChange() (Status, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.changed == nil {
		p.changed = make(chan struct{})
	}
	return Status{ID: p.m.ID, State: p.state, PID: p.pid, Restarts: p.restarts, LastError: p.lastErr, Stderr: p.stderr.lines()}, p.changed
}

// changedLocked tells statusChange's waiters that the status changed;
// p.mu is held.
func (p *Process) changedLocked() {
	if p.changed != nil {
		close(p.changed)
		p.changed = nil
	}
}

// WaitReady waits until the plugin is running (its tools registered) or
// ctx ends.
func (p *Process) WaitReady(ctx context.Context) error {
	for {
		p.mu.Lock()
		ready, state, last := p.ready, p.state, p.lastErr
		p.mu.Unlock()
		if state == Failed || state == Stopped {
			return fmt.Errorf("plugin %s %s: %s", p.m.ID, state, last)
		}
		if p.notWaited() {
			select {
			case <-ready:
				return nil
			default:
			}
			return fmt.Errorf("plugin %s not waited for: %s", p.m.ID, last)
		}
		select {
		case <-ready:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("plugin %s not ready: %w (last error: %s)", p.m.ID, ctx.Err(), last)
		case <-p.done:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Stop stops the plugin gracefully: shutdown (its stop handlers and Stop
// run), then stdin closed, then SIGTERM, then SIGKILL, each after the grace
// period. Its registrations are withdrawn, its decision hooks too: only a
// deliberate stop ends the refusals of a guard that is down.
func (p *Process) Stop() { p.halt(false) }

// stopForRestart stops the plugin for a new Process of the same folder
// (a reload): a guard's hooks stay suspended, holding calls, until the new
// process has finished its handshake.
func (p *Process) stopForRestart() { p.halt(true) }

func (p *Process) halt(restart bool) {
	if restart {
		p.mu.Lock()
		p.restarting = true
		p.mu.Unlock()
	}
	p.stopOnce.Do(func() { close(p.stop) })
	<-p.done
	p.release()
}

// release withdraws a stopped plugin, or suspends it for its restart.
func (p *Process) release() {
	p.mu.Lock()
	restart, guards := p.restarting, p.guards
	p.mu.Unlock()
	if restart && guards {
		p.opts.Host.Suspend(p.name, "it is restarting", true)
		return
	}
	p.opts.Host.Withdraw(p.name)
}

func (p *Process) setState(s State, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.state = s
	if err != nil {
		p.lastErr = err.Error()
	}
	p.changedLocked()
}

// supervise runs the plugin, and runs it again after a crash with
// exponential backoff, until Stop.
func (p *Process) supervise() {
	defer close(p.done)
	defer p.claim.Release() // after the last withdrawal, before Stop returns
	backoff := p.opts.BackoffMin
	for {
		started := time.Now()
		autoRestart, err := p.runOnce()
		select {
		case <-p.stop:
			p.release()
			p.setState(Stopped, nil)
			return
		default:
		}
		p.down(err, autoRestart)
		p.standInGuards()
		p.log.Error("plugin stopped unexpectedly", "err", err, "stderr", p.stderr.tail(5))
		if !autoRestart {
			p.setState(Failed, err)
			return
		}
		if time.Since(started) > time.Minute {
			backoff = p.opts.BackoffMin
		}
		p.mu.Lock()
		p.restarts++
		p.state, p.lastErr = Backoff, err.Error()
		p.ready = make(chan struct{})
		p.changedLocked()
		p.mu.Unlock()
		select {
		case <-p.stop:
			p.setState(Stopped, nil)
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, p.opts.BackoffMax)
		p.setState(Starting, nil)
	}
}

// minimalEnv is the plugin's environment: enough to run programs and
// format text, none of Hearth's secrets, plus what the manifest adds.
func (p *Process) minimalEnv(dataDir string) []string {
	var env []string
	// GORACE only matters to a plugin built with -race (the race
	// detector's options, such as its exit delay); it holds no secret.
	for _, k := range []string{"PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "SYSTEMROOT", "GORACE"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	env = append(env, "HOME="+dataDir, "HEARTH_PLUGIN_ID="+p.m.ID, "HEARTH_PLUGIN_DATA="+dataDir,
		fmt.Sprintf("HEARTH_PROTOCOL=%d", wire.ProtocolVersion))
	if p.mcp == nil { // the TypeScript and Python SDKs, carried in this binary
		if root, err := scaffold.Provide(p.opts.DataDir); err != nil {
			p.log.Warn("the plugin SDKs are not provided", "err", err)
		} else {
			env = append(env, scaffold.Env(root)...)
		}
	}
	for k, v := range p.m.Env {
		env = append(env, k+"="+v)
	}
	if p.mcp != nil {
		env = append(env, p.mcp.env()...)
	}
	return env
}

// spawned is a started plugin process.
type spawned struct {
	cmd       *exec.Cmd
	stdin     io.WriteCloser
	stdout    io.ReadCloser
	exited    chan error // receives cmd.Wait's result once
	relayDone chan struct{}
	dataDir   string
}

// spawn starts the process with the plugin folder as its working
// directory, a minimal environment, a new session, and its stderr
// relayed into the log.
func (p *Process) spawn() (*spawned, error) {
	dataDir := filepath.Join(p.opts.DataDir, "plugin_data", p.name)
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the data directory: %w", err)
	}
	dir := p.dir
	if dir == "" {
		dir = dataDir // an MCP server without a cwd
	}
	name := p.m.Command[0]
	if !filepath.IsAbs(name) && (filepath.Base(name) != name) {
		name = filepath.Join(dir, name)
	}
	// Resolved here so that a missing program is reported at once, not
	// by the shim.
	path, err := exec.LookPath(name)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", p.m.Command[0], err)
	}
	cmd := pluginCommand(path, name, p.m.Command[1:])
	cmd.Dir = dir
	cmd.Env = p.minimalEnv(dataDir)
	sp := &spawned{cmd: cmd, exited: make(chan error, 1), relayDone: make(chan struct{}), dataDir: dataDir}
	if sp.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if sp.stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := startCommand(cmd); err != nil {
		return nil, fmt.Errorf("starting %s: %w", p.m.Command[0], err)
	}
	p.mu.Lock()
	p.pid = cmd.Process.Pid
	p.changedLocked()
	p.mu.Unlock()
	go func() { defer close(sp.relayDone); relayStderr(stderr, p.log, p.stderr) }()
	// Crash detection waits on the process, not on stdout: a grandchild
	// holding the pipe open cannot hide the plugin's death.
	go func() { sp.exited <- waitCommand(cmd) }()
	return sp, nil
}

// kill ends the plugin and its descendants (see signalPlugin) and lets
// the stderr relay finish; if that takes more than a second, it kills the
// process group.
func (sp *spawned) kill() {
	signalPlugin(sp.cmd, syscall.SIGKILL)
	select {
	case <-sp.relayDone:
	case <-time.After(time.Second):
		killGroup(sp.cmd)
	}
}

// markRunning records a finished handshake.
func (p *Process) markRunning(pid int, detail string) {
	p.mu.Lock()
	p.state = Running
	close(p.ready)
	p.changedLocked()
	p.mu.Unlock()
	p.log.Info("plugin running", "pid", pid, "protocol", detail)
}

// runOnce starts the process, does the handshake, and serves it until it
// exits or Stop. It reports whether the plugin wants to be restarted.
func (p *Process) runOnce() (autoRestart bool, err error) {
	p.mu.Lock()
	p.hooks = 0
	p.mu.Unlock()
	if p.mcp != nil {
		return p.runMCP()
	}
	if p.m.Script() {
		return p.runScript()
	}
	sp, err := p.spawn()
	if err != nil {
		return true, err
	}
	if p.m.Xbot() {
		return p.runXbot(sp)
	}
	return p.runHearth(sp)
}

// handshakeExit is the error of a plugin that exited during the
// handshake: how it exited and, once the stderr relay has read the rest,
// the last line it wrote to stderr (masked), which usually says why. The
// process is gone, so the relay ends as soon as it has read what is left,
// unless a grandchild holds the pipe: that costs at most the wait below,
// which is generous because a loaded machine can take a while to schedule
// the relay.
func (p *Process) handshakeExit(sp *spawned, werr error) error {
	select {
	case <-sp.relayDone:
	case <-time.After(3 * time.Second):
	}
	if last := p.stderr.tail(1); last != "" {
		return fmt.Errorf("exited during the handshake: %v; its last stderr line: %s", exitText(werr), last)
	}
	return fmt.Errorf("exited during the handshake: %v", exitText(werr))
}

// runHearth serves a plugin speaking the Hearth protocol.
func (p *Process) runHearth(sp *spawned) (autoRestart bool, err error) {
	cmd, stdin, exited, dataDir := sp.cmd, sp.stdin, sp.exited, sp.dataDir
	offering := p.offering()
	if offering {
		// A handshake that failed confirms nothing: the cached tools go
		// before their waiting calls are told.
		defer func() { p.offer.fail(err, func() { p.opts.Host.ReplaceRemoteTools(p.name, nil, nil) }) }()
	} else if err := p.opts.Host.SetManifest(p.name, p.pendingManifest()); err != nil {
		// No tool of the plugin runs before its manifest is in force
		// (an offered one's cached manifest is).
		sp.kill()
		<-exited
		return false, err
	}
	rec := &runRecord{collect: offering}
	p.mu.Lock()
	p.rec = rec
	p.mu.Unlock()
	conn := wire.NewConn(sp.stdout, stdin, p.log)
	p.opts.Host.SetCapabilities(p.name, p.m.Capabilities)
	p.serveHost(conn)
	defer p.opts.Widgets.clear(p.name) // widgets.set ones
	go conn.Run()
	cleanup := func(reason error) {
		conn.Close(reason)
		sp.kill()
	}

	ctx, cancel := context.WithTimeout(context.Background(), p.opts.HandshakeTimeout)
	var res wire.InitializeResult
	hsErr := make(chan error, 1)
	go func() {
		hsErr <- conn.Call(ctx, wire.MethodInitialize, wire.InitializeParams{
			ProtocolVersions: []int{wire.ProtocolVersion}, HostVersion: p.opts.HostVersion,
			Plugin: p.name, DataDir: dataDir, Config: p.m.Config, Capabilities: p.m.Capabilities,
		}, &res)
	}()
	var handshake error
	select {
	case handshake = <-hsErr:
	case werr := <-exited:
		cancel()
		err := p.handshakeExit(sp, werr)
		cleanup(err)
		return true, err
	case <-p.stop:
		// Stopped before it ever ran (hearth ask done before a plugin
		// it did not need was up): not waited for.
		cancel()
		killGroup(cmd) // the shim too: it may not have set up its signals yet
		cleanup(errors.New("plugin stopped during its handshake"))
		<-exited
		return false, nil
	}
	cancel()
	if handshake == nil && res.ProtocolVersion != wire.ProtocolVersion {
		handshake = fmt.Errorf("the plugin chose protocol version %d, which this Hearth did not offer (it speaks %d)", res.ProtocolVersion, wire.ProtocolVersion)
	}
	if handshake != nil && errors.Is(handshake, wire.ErrClosed) {
		// The output ended: the process is exiting; report how.
		select {
		case werr := <-exited:
			err := p.handshakeExit(sp, werr)
			cleanup(err)
			return true, err
		case <-time.After(time.Second):
		}
	}
	if handshake != nil {
		var rerr *wire.Error
		if errors.As(handshake, &rerr) && rerr.Code == wire.CodeVersion {
			handshake = fmt.Errorf("protocol version mismatch: %s", rerr.Message)
		} else if errors.Is(handshake, context.DeadlineExceeded) {
			handshake = fmt.Errorf("no handshake within %s", p.opts.HandshakeTimeout)
		} else {
			handshake = fmt.Errorf("handshake failed: %w", handshake)
		}
		cleanup(handshake)
		<-exited
		return true, handshake
	}
	// The plugin's answer to what it promised is deterministic: a bad
	// manifest or a missing hook does not get better by restarting.
	if err := p.applyManifest(conn, res.Manifest); err != nil {
		// Refused or hidden, the plugin is not used, as compiled in: the
		// hooks of its handshake do not count; a declared one still does.
		p.mu.Lock()
		p.guards = p.m.DecisionHook
		p.mu.Unlock()
		cleanup(err)
		<-exited
		return false, err
	}
	if err := p.hookWithoutRegistration(); err != nil {
		cleanup(err)
		<-exited
		return false, err
	}
	if offering {
		p.confirmOffer(rec, res.Manifest)
	}
	p.guarded()
	p.opts.Host.ResumeHooks(p.name)
	p.guardStagesReady()
	p.conn.Store(conn)
	defer p.conn.Store(nil)
	p.markRunning(cmd.Process.Pid, "hearth/1, sdk "+res.SDKVersion)

	pingFailed := make(chan error, 1)
	stopPing := make(chan struct{})
	go p.ping(conn, pingFailed, stopPing)
	defer close(stopPing)

	// The record of this handshake (offer.go) is written a moment after
	// it, or when the plugin is stopped first (hearth ask), so that its
	// writing does not compete with the turn the handshake let start.
	save := time.After(saveOfferAfter)
	saveOnce := func() {
		if save != nil {
			save = nil
			p.saveOffer(rec, res.Manifest)
		}
	}
	done := conn.Done()
	for {
		select {
		case <-save:
			saveOnce()
		case werr := <-exited:
			err := fmt.Errorf("exited: %v", exitText(werr))
			cleanup(err)
			return res.AutoRestart, err
		case perr := <-pingFailed:
			cleanup(perr)
			<-exited
			return res.AutoRestart, perr
		case <-p.stop:
			saveOnce()
			p.shutdown(conn, cmd, stdin, exited)
			cleanup(errors.New("plugin stopped"))
			return false, nil
		case <-done:
			// A message too large to tell whose answer it was closed
			// the connection: the process is restarted. Otherwise the
			// output ended and the process is exiting; wait for it.
			if tl := (*wire.TooLargeError)(nil); errors.As(conn.Err(), &tl) {
				err := fmt.Errorf("its output broke the protocol: %w", tl)
				cleanup(err)
				<-exited
				return res.AutoRestart, err
			}
			done = nil
		}
	}
}

// ping checks that the plugin still answers.
func (p *Process) ping(conn *wire.Conn, failed chan<- error, stop <-chan struct{}) {
	p.pingEvery(failed, stop, func(ctx context.Context) error {
		return conn.Call(ctx, wire.MethodPing, struct{}{}, nil)
	})
}

// errStopPinging, from a ping function, ends pingEvery quietly.
var errStopPinging = errors.New("stop pinging")

// pingEvery calls ping every PingInterval until stop is closed or ping
// returns errStopPinging. A ping with no reply within PingTimeout is sent
// on failed, and ends it; other errors do not.
func (p *Process) pingEvery(failed chan<- error, stop <-chan struct{}, ping func(ctx context.Context) error) {
	t := time.NewTicker(p.opts.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), p.opts.PingTimeout)
		err := ping(ctx)
		cancel()
		switch {
		case errors.Is(err, errStopPinging):
			return
		case errors.Is(err, context.DeadlineExceeded):
			failed <- fmt.Errorf("stopped answering (no reply to a ping within %s)", p.opts.PingTimeout)
			return
		}
	}
}

// shutdown stops the process gracefully.
func (p *Process) shutdown(conn *wire.Conn, cmd *exec.Cmd, stdin io.Closer, exited <-chan error) {
	ctx, cancel := context.WithTimeout(context.Background(), p.opts.GracePeriod)
	err := conn.Call(ctx, wire.MethodShutdown, struct{}{}, nil)
	cancel()
	if err != nil {
		p.log.Warn("plugin shutdown failed", "err", err)
	}
	stdin.Close()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		select {
		case <-exited:
			return
		case <-time.After(p.opts.GracePeriod):
			signalPlugin(cmd, sig)
		}
	}
	select {
	case <-exited:
		return
	case <-time.After(p.opts.GracePeriod):
		killGroup(cmd) // a shim that did not do it
	}
	<-exited
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}
