package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/sdk"
)

// RuntimeMCP is the runtime of the synthesized manifest of an MCP server
// (a plugin.json cannot ask for it).
const RuntimeMCP = "mcp"

// The steps of an MCP server's stop after its session is closed: SIGTERM
// this long after, then SIGKILL this long after that. MCP servers often
// ignore the end of their input (the spec's only shutdown signal for
// stdio), so these are short.
const (
	mcpTermAfter = 200 * time.Millisecond
	mcpKillAfter = 300 * time.Millisecond
)

// mcpStdioHandshake is the least time a stdio server is given to answer
// initialize: `npx -y` and `uvx` download the server on its first start.
const mcpStdioHandshake = 60 * time.Second

// mcpDefaultTimeout is a tool call's deadline when the config gives none.
const mcpDefaultTimeout = 60 * time.Second

// mcpServer is what a Process running an MCP server keeps across its
// runs.
type mcpServer struct {
	name string // in config.json
	cfg  config.MCPServer

	mu       sync.Mutex
	session  *mcp.ClientSession // nil while down
	prompts  []MCPPrompt
	progress map[string]func(done, total float64, message string)
	seq      int
	lost     chan struct{} // a call found the session gone

	logMu      sync.Mutex
	logBudget  *bucket // the server's log notifications, like stderr's
	logDropped int
}

// timeout is one tool call's deadline.
func (s *mcpServer) timeout() time.Duration {
	if d := time.Duration(s.cfg.Timeout); d > 0 {
		return d
	}
	return mcpDefaultTimeout
}

// mcpInherited are the host variables an MCP server gets beyond the
// minimal base of every plugin: those the official MCP SDKs pass by
// default (HOME, so that npx and uvx find their caches). They win over
// the base's HOME (the data folder).
var mcpInherited = []string{"HOME", "LOGNAME", "SHELL", "TERM", "USER"}

// env is what the server's process gets beyond the minimal base:
// mcpInherited, then the config's env, ${NAME} expanded from the host's
// environment (a later value wins).
func (s *mcpServer) env() []string {
	keys := make([]string, 0, len(s.cfg.Env))
	for k := range s.cfg.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys)+len(mcpInherited))
	for _, k := range mcpInherited {
		if v, ok := os.LookupEnv(k); ok {
			out = append(out, k+"="+v)
		}
	}
	for _, k := range keys {
		out = append(out, k+"="+expandEnv(s.cfg.Env[k]))
	}
	return out
}

func (s *mcpServer) setSession(cs *mcp.ClientSession) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.session = cs
	if cs == nil {
		s.prompts = nil
	}
}

func (s *mcpServer) current() *mcp.ClientSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.session
}

// watchProgress routes the progress notifications of one call to fn: it
// returns the call's progress token and a function that stops the routing.
func (s *mcpServer) watchProgress(fn func(done, total float64, message string)) (string, func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	tok := fmt.Sprintf("hearth-%d", s.seq)
	if s.progress == nil {
		s.progress = map[string]func(float64, float64, string){}
	}
	s.progress[tok] = fn
	return tok, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.progress, tok)
	}
}

// progressed passes a progress notification to its call, if it is still
// running.
func (s *mcpServer) progressed(p *mcp.ProgressNotificationParams) {
	if p == nil {
		return
	}
	s.mu.Lock()
	fn := s.progress[fmt.Sprint(p.ProgressToken)]
	s.mu.Unlock()
	if fn != nil {
		fn(p.Progress, p.Total, cleanText(p.Message, 500))
	}
}

// signalLost tells the supervisor that the session is gone.
func (s *mcpServer) signalLost() {
	select {
	case s.lost <- struct{}{}:
	default:
	}
}

// StartMCP starts supervising the MCP server named server in config.json
// as the plugin mcp-<server>, as Start does for a plugin folder: it claims
// the name (an error wraps names.ErrReserved or names.ErrTaken when it
// cannot) and returns at once.
func StartMCP(server string, cfg config.MCPServer, opts *Options) (*Process, error) {
	if err := config.CheckMCPName(server); err != nil {
		return nil, fmt.Errorf("MCP server not started: %w", err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("MCP server %q not started: %w", server, err)
	}
	kind := mcpTransportKind(cfg)
	o := opts.withDefaults()
	if o.Host == nil {
		return nil, errors.New("pluginhost: Options.Host is nil")
	}
	name := MCPPluginName(server)
	claim, err := o.Names.Claim(name, fmt.Sprintf("the MCP server %q of config.json", server))
	if err != nil {
		return nil, fmt.Errorf("MCP server %q not started: %w", server, err)
	}
	m := &Manifest{ID: name, Name: server, Runtime: RuntimeMCP}
	if kind == "stdio" {
		m.Command = append([]string{cfg.Command}, cfg.Args...)
	}
	s := &mcpServer{name: server, cfg: cfg, lost: make(chan struct{}, 1), logBudget: newBucket(time.Now)}
	keep := newRing(50)
	keep.mask = s.maskText
	p := &Process{
		m: m, name: name, claim: claim, dir: cfg.Cwd, opts: o, log: o.Log.With("plugin", name),
		stderr: keep, state: Starting,
		ready: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{}),
		autoStart: true, mcp: s,
	}
	go p.supervise()
	return p, nil
}

// mcpEvents are the server's notifications the supervisor acts on.
type mcpEvents struct {
	tools, prompts chan struct{}
}

func poke(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// newMCPClient returns the client of one run.
func (p *Process) newMCPClient(ev *mcpEvents) *mcp.Client {
	s := p.mcp
	return mcp.NewClient(&mcp.Implementation{Name: "hearth", Version: p.opts.HostVersion}, &mcp.ClientOptions{
		ToolListChangedHandler:      func(context.Context, *mcp.ToolListChangedRequest) { poke(ev.tools) },
		PromptListChangedHandler:    func(context.Context, *mcp.PromptListChangedRequest) { poke(ev.prompts) },
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { s.progressed(r.Params) },
		LoggingMessageHandler:       func(_ context.Context, r *mcp.LoggingMessageRequest) { p.serverLog(r.Params) },
	})
}

// serverLog puts a log message of the server into the plugin's log,
// its secrets masked, rate limited as stderr is: what goes over is
// dropped and counted.
func (p *Process) serverLog(m *mcp.LoggingMessageParams) {
	if m == nil {
		return
	}
	level := slog.LevelInfo
	switch m.Level {
	case "debug":
		level = slog.LevelDebug
	case "notice", "info":
	case "warning":
		level = slog.LevelWarn
	default:
		level = slog.LevelError
	}
	data, err := json.Marshal(m.Data)
	if err != nil {
		data = []byte(fmt.Sprint(m.Data))
	}
	text := p.mcp.maskText(truncateText(string(data), maxStderrLine))
	s := p.mcp
	s.logMu.Lock()
	ok := s.logBudget.take(len(text))
	dropped := 0
	if ok {
		dropped, s.logDropped = s.logDropped, 0
	} else {
		s.logDropped++
	}
	s.logMu.Unlock()
	if !ok {
		return
	}
	if dropped > 0 {
		p.log.Warn(fmt.Sprintf("MCP server log: %d messages dropped (over the rate limit)", dropped), "dropped_messages", dropped)
	}
	p.log.Log(context.Background(), level, "MCP server log", "level", string(m.Level), "logger", cleanText(m.Logger, 200), "data", text)
}

// runMCP connects to the MCP server (starting its process for stdio),
// registers its tools, and serves it until it exits, its session ends, or
// Stop.
func (p *Process) runMCP() (autoRestart bool, err error) {
	s := p.mcp
	unset := unsetVars(s.cfg)
	if len(unset) > 0 {
		p.log.Warn("the MCP server's config names variables that are not set", "server", s.name, "variables", strings.Join(unset, ", "))
	}
	defer func() {
		if err != nil && len(unset) > 0 {
			err = fmt.Errorf("%w (not set: %s)", err, strings.Join(unset, ", "))
		}
		err = s.redact(err)
	}()
	select {
	case <-s.lost: // from the previous run
	default:
	}
	var sp *spawned
	pid := 0
	if mcpTransportKind(s.cfg) == "stdio" {
		if sp, err = p.spawn(); err != nil {
			return true, err
		}
		pid = sp.cmd.Process.Pid
		if len(s.cfg.Env) > 0 {
			names := make([]string, 0, len(s.cfg.Env))
			for k := range s.cfg.Env {
				names = append(names, k)
			}
			sort.Strings(names)
			p.log.Debug("MCP server started", "pid", pid, "env", strings.Join(names, ","))
		}
	}
	kill := func() {
		if sp != nil {
			sp.kill()
			<-sp.exited
		}
	}
	if err := p.opts.Host.SetManifest(p.name, sdk.Manifest{ID: p.name, Name: p.name, Version: "0.0.0"}); err != nil {
		kill()
		return false, err
	}
	ev := &mcpEvents{tools: make(chan struct{}, 1), prompts: make(chan struct{}, 1)}
	client := p.newMCPClient(ev)
	// The connection lives in ctx (a remote transport keeps its streams
	// in the context it connected with); the handshake's deadline ends it
	// only while the handshake lasts.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	limit := p.opts.HandshakeTimeout
	if sp != nil {
		// npx and uvx fetch a server on its first start: give it time.
		limit = max(limit, mcpStdioHandshake)
	}
	hs := time.AfterFunc(limit, cancel)
	type connected struct {
		cs  *mcp.ClientSession
		err error
	}
	got := make(chan connected, 1)
	go func() {
		var c connected
		if sp != nil {
			// Closing the session closes the server's input only: its
			// output is read until it exits (cmd.Wait closes it then), so
			// a server that writes as it shuts down is not killed by
			// SIGPIPE.
			c.cs, c.err = client.Connect(ctx, &mcp.IOTransport{Reader: io.NopCloser(sp.stdout), Writer: sp.stdin}, nil)
		} else {
			c.cs, c.err = p.connectHTTP(ctx, client)
		}
		got <- c
	}()
	var c connected
	var exited <-chan error
	if sp != nil {
		exited = sp.exited
	}
	select {
	case c = <-got:
	case werr := <-exited:
		hs.Stop()
		cancel()
		sp.kill()
		if c = <-got; c.cs != nil {
			c.cs.Close()
		}
		return true, p.diedAtInitialize(werr)
	case <-p.stop:
		hs.Stop()
		cancel()
		if c = <-got; c.cs != nil {
			p.stopMCP(c.cs, sp, nil)
		} else {
			kill()
		}
		return false, nil
	}
	if !hs.Stop() && c.err == nil {
		// The deadline passed as it connected: the session is cut.
		kill() // first: closing waits for the server's output to end
		c.cs.Close()
		return true, fmt.Errorf("no answer to initialize within %s", limit)
	}
	if c.err != nil {
		if sp != nil {
			// The server closed its output: it is most likely exiting.
			select {
			case werr := <-sp.exited:
				sp.kill()
				return true, p.diedAtInitialize(werr)
			case <-time.After(time.Second):
			}
		}
		kill()
		if errors.Is(c.err, context.DeadlineExceeded) || errors.Is(c.err, context.Canceled) {
			return true, fmt.Errorf("no answer to initialize within %s", limit)
		}
		return true, fmt.Errorf("initialize: %w", c.err)
	}
	cs := c.cs
	ended := make(chan error, 1)
	go func() { ended <- cs.Wait() }()
	s.setSession(cs)
	defer s.setSession(nil)
	if err := p.registerMCP(cs, true); err != nil {
		p.stopMCP(cs, sp, ended)
		return true, err
	}
	p.opts.Host.ResumeHooks(p.name)
	p.markRunning(pid, "mcp "+cs.InitializeResult().ProtocolVersion)
	pingFailed := make(chan error, 1)
	stopPing := make(chan struct{})
	defer close(stopPing)
	go p.pingMCP(cs, pingFailed, stopPing)
	for {
		select {
		case perr := <-pingFailed:
			p.stopMCP(cs, sp, ended)
			return true, perr
		case werr := <-exited:
			sp.kill()
			cs.Close()
			<-ended
			return true, fmt.Errorf("exited: %v", exitText(werr))
		case werr := <-ended:
			// The connection ended: the process is exiting, or the
			// keepalive ping or the remote session failed.
			cs.Close() // ends what the SDK keeps running for the session
			if sp == nil {
				return true, fmt.Errorf("the session ended: %v", exitText(werr))
			}
			select {
			case xerr := <-exited:
				sp.kill()
				return true, fmt.Errorf("exited: %v", exitText(xerr))
			case <-time.After(mcpTermAfter + mcpKillAfter):
				sp.kill()
				<-exited
				return true, fmt.Errorf("its connection ended: %v", exitText(werr))
			}
		case <-s.lost:
			p.stopMCP(cs, sp, ended)
			return true, errors.New("the server lost the session")
		case <-ev.tools:
			p.log.Info("MCP server's tools changed")
			if err := p.registerMCP(cs, false); err != nil {
				p.log.Warn("listing the changed tools", "err", p.mcp.redact(err))
			}
		case <-ev.prompts:
			p.listPrompts(cs)
		case <-p.stop:
			p.stopMCP(cs, sp, ended)
			return false, nil
		}
	}
}

// diedAtInitialize describes a stdio server that exited before it
// answered initialize: its exit status and its last stderr lines (masked
// as they were kept), cut to about 300 bytes. The stderr relay has ended.
func (p *Process) diedAtInitialize(werr error) error {
	msg := "exited with " + strings.TrimPrefix(exitText(werr), "exit ") + " before answering initialize"
	lines := p.stderr.lines()
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	if tail := strings.Join(lines, " | "); tail != "" {
		if len(tail) > 300 {
			tail = "…" + tail[len(tail)-300:]
			for !utf8.ValidString(tail) {
				tail = "…" + tail[len("…")+1:]
			}
		}
		msg += fmt.Sprintf(": %q", tail)
	}
	return errors.New(msg)
}

// pingMCP checks that the server still answers. It is ours, not the
// SDK's keepalive, which sessions of protocol 2026-07-28 do not start.
// A server that does not know ping is not pinged again.
func (p *Process) pingMCP(cs *mcp.ClientSession, failed chan<- error, stop <-chan struct{}) {
	p.pingEvery(failed, stop, func(ctx context.Context) error {
		if err := cs.Ping(ctx, nil); !isMethodNotFound(err) {
			return err
		}
		return errStopPinging
	})
}

// isMethodNotFound reports a JSON-RPC "method not found" answer.
func isMethodNotFound(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we) && we.Code == jsonrpc.CodeMethodNotFound
}

// stopMCP ends a session: it closes it (for stdio, the server's input),
// then sends SIGTERM after mcpTermAfter and SIGKILL after mcpKillAfter
// more. A remote session's close (an HTTP DELETE) is waited for as long.
// ended, when not nil, is the session's Wait.
func (p *Process) stopMCP(cs *mcp.ClientSession, sp *spawned, ended <-chan error) {
	closed := make(chan struct{})
	go func() { defer close(closed); cs.Close() }()
	if sp == nil {
		select {
		case <-closed:
		case <-time.After(mcpTermAfter + mcpKillAfter):
			p.log.Warn("the MCP server did not confirm the end of the session")
		}
		return
	}
	select {
	case <-sp.exited:
		sp.kill()
		<-closed
		return
	case <-time.After(mcpTermAfter):
	}
	signalPlugin(sp.cmd, syscall.SIGTERM)
	select {
	case <-sp.exited:
	case <-time.After(mcpKillAfter):
		sp.kill()
		<-sp.exited
	}
	sp.kill() // its descendants and the stderr relay
	<-closed
	if ended != nil {
		<-ended
	}
}

// cleanText keeps what a server sends for people to read (a title, a
// description, a progress message) to printable text of at most n bytes:
// control characters, format characters (bidi controls, zero-width
// characters; a zero-width joiner between two emoji stays) and line and
// paragraph separators are dropped.
func cleanText(s string, n int) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			continue
		case r == 0x200d && i > 0 && i+1 < len(rs) && isEmoji(rs[i-1]) && isEmoji(rs[i+1]):
		case unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
			continue
		}
		b.WriteRune(r)
	}
	return truncateText(strings.TrimSpace(b.String()), n)
}

// isEmoji reports a rune a zero-width joiner may join to another.
func isEmoji(r rune) bool {
	return r >= 0x1f000 || unicode.Is(unicode.So, r) || r == 0xfe0f
}
