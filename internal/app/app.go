// Package app assembles a running Hearth from its parts: the data
// directory, the config file, the store, the model sources, the kernel and
// the compiled-in plugins. cmd/hearth and end-to-end tests share it.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/datadir"
	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/knowledge"
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/logfile"
	"github.com/hearth-agent/hearth/internal/media"
	"github.com/hearth-agent/hearth/internal/memory"
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/internal/redact"
	"github.com/hearth-agent/hearth/internal/search"
	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

// Options say how to start. A nil *Options means all defaults.
type Options struct {
	DataDir string              // --data-dir; empty means HEARTH_HOME or ~/.hearth
	Model   string              // --model
	Source  string              // --source
	Getenv  func(string) string // nil means os.Getenv
	// LogTo receives logs in addition to <data dir>/hearth.log; nil for
	// none.
	LogTo io.Writer
	// LogLevel is the level for LogTo; the file always gets Info.
	LogLevel slog.Level
	// Plugins says what to do with the process plugins in
	// <data dir>/plugins: nothing (commands that only read the
	// configuration), start them, or start them and wait for their
	// handshakes (one-shot commands that need their tools at once).
	// Every mode but PluginsOff first takes the data directory's lock:
	// one process owns the plugins (see datadir.Acquire).
	Plugins PluginMode
	// Secrets, when set, returns more secrets of the data directory
	// (hearth serve's API token), masked like the model keys from before
	// any plugin starts: a plugin's first turn may already hold one.
	Secrets func(dataDir string) ([]string, error)
	// WatchInterval is how often the plugins folder and config.json's
	// MCP servers are checked for changes while Hearth runs (default 2 s;
	// only with PluginsStart).
	WatchInterval time.Duration
}

// PluginMode is what Open does with process plugins.
type PluginMode int

// The plugin modes.
const (
	// PluginsOff leaves the process plugins alone; any number of
	// processes may open the data directory so.
	PluginsOff PluginMode = iota
	// PluginsStart takes the lock and starts the plugins; Open fails with
	// a *datadir.LockedError when another process holds it.
	PluginsStart
	// PluginsWait is PluginsStart, then waits for the handshakes.
	PluginsWait
	// PluginsIfFree is PluginsWait when the lock is free, and PluginsOff
	// with App.Busy set when another process holds it: for commands that
	// show the plugins' tools but can do without them.
	PluginsIfFree
	// PluginsOffer is PluginsWait, except that a plugin whose last
	// handshake registered only tools, and whose files did not change
	// since, is not waited for: its tools are offered from that
	// handshake's record at once and wait for it when called (see
	// pluginhost.Options.OfferCached). For one-shot turns.
	PluginsOffer
)

// App is a started Hearth.
type App struct {
	DataDir  string
	Config   *config.File
	Store    *store.Store
	Sources  *llm.Sources
	Policy   *policy.Engine
	Settings *settings.Service
	Memory   *memory.Graph
	Text     *memory.Text
	Docs     *memory.Docs
	KB       *knowledge.Base
	// Index is the ranked index shared by doc memory, knowledge and
	// recall.
	Index   *search.Index
	Kernel  *kernel.Kernel
	Plugins *pluginhost.Manager
	Logger  *slog.Logger
	// Busy names the process that owns the plugins when Options.Plugins
	// was PluginsIfFree and they were left off because of it.
	Busy *datadir.LockedError
	// Warnings are things the user should read once, in English and
	// Chinese (a data directory that was open to others and was made
	// private).
	Warnings []string

	lock        *datadir.Lock
	stopFlush   func()
	logFile     *logfile.File
	logMask     atomic.Pointer[redact.Secrets] // the keys the log masks, once known
	stopWatch   func()                         // stops the plugin folder watcher and waits for it
	stopPrune   func()                         // stops the daily trace pruning and waits for it
	catalogRead func()                         // waits for the policy's catalogue read (policy.Engine.WarmCatalog)
	mcp         mcpState                       // the MCP servers applied from config.json
}

// Open starts Hearth: it reads the config, opens the database, resolves the
// model sources, and loads every compiled-in plugin not disabled. A plugin
// that fails to start is logged and skipped; Hearth runs without it.
func Open(ctx context.Context, opts *Options) (*App, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	dir, err := config.DataDir(o.DataDir, o.Getenv)
	if err != nil {
		return nil, err
	}
	loose, err := datadir.Secure(dir)
	if err != nil {
		return nil, err
	}
	a := &App{DataDir: dir}
	if err := a.takeLock(o); err != nil {
		return nil, err
	}
	a.mcp.stamp = statConfig(dir) // before reading: a change made meanwhile is seen
	if a.Config, err = config.Load(dir); err != nil {
		a.Close()
		return nil, err
	}
	if err := a.Config.CheckBuiltins(sdk.Factories()); err != nil {
		a.Close()
		return nil, err
	}
	cfg := a.Config
	if err := a.openLog(o); err != nil {
		a.Close()
		return nil, err
	}
	for _, l := range loose {
		a.Logger.Warn("the data directory was open to other users; made it private", "path", l.Path,
			"was", fmt.Sprintf("%04o", l.Was), "now", fmt.Sprintf("%04o", l.Now))
		a.Warnings = append(a.Warnings, fmt.Sprintf("%s was open to other users; made it private (%04o -> %04o) / 其他用户可以访问它，已改为仅本人可访问",
			l.Path, l.Was, l.Now))
	}
	list, current, err := cfg.ResolveSources(config.Overrides{Env: o.Getenv, Model: o.Model, Source: o.Source})
	if err != nil {
		a.Close()
		return nil, err
	}
	a.Sources, err = llm.NewSources(list, current)
	if err != nil {
		a.Close()
		return nil, err
	}
	a.logMask.Store(a.Sources.Secrets())
	if o.Secrets != nil {
		more, err := o.Secrets(dir)
		if err != nil {
			a.Close()
			return nil, err
		}
		a.Sources.Secrets().Add(more...)
	}
	a.Sources.SetLogger(a.Logger) // -v shows each provider request
	// A voice note is transcribed before its turn when config.json has
	// "speech"; its key is masked like the sources' keys.
	var transcriber media.Transcriber
	if sp, err := cfg.ResolveSpeech(o.Getenv); err != nil {
		a.Close()
		return nil, err
	} else if sp != nil {
		if k := sp.Key(); k != "" {
			a.Sources.Secrets().Add(k)
		}
		transcriber = sp
	}
	// The images of a message are read by OCR for a model that cannot
	// see them when config.json has "ocr".
	var recognizer media.Recognizer
	if ocr, err := cfg.ResolveOCR(o.Getenv); err != nil {
		a.Close()
		return nil, err
	} else if ocr != nil {
		if k := ocr.Key(); k != "" {
			a.Sources.Secrets().Add(k)
		}
		recognizer = ocr
	}
	if id, base, key, ok, err := cfg.OCRProvider(o.Getenv); err != nil {
		a.Close()
		return nil, err
	} else if ok {
		if key != "" {
			a.Sources.Secrets().Add(key)
		}
		recognizer = &pluginOCR{a: a, id: id, baseURL: base, key: key, maxPages: cfg.OCR.MaxPages, timeout: time.Duration(cfg.OCR.Timeout)}
	}
	if id, base, key, ok, err := cfg.SpeechProvider(o.Getenv); err != nil {
		a.Close()
		return nil, err
	} else if ok {
		// A PKU plugin's speech provider: a.Plugins exists by the time a
		// voice note arrives.
		if key != "" {
			a.Sources.Secrets().Add(key)
		}
		transcriber = &pluginSpeech{a: a, id: id, baseURL: base, model: cfg.Speech.Model, key: key, maxBytes: cfg.Speech.MaxBytes,
			timeout: time.Duration(cfg.Speech.Timeout)}
	}
	a.Store, err = store.Open(ctx, dir)
	if err != nil {
		a.Close()
		return nil, err
	}
	if err := a.fallback(ctx); err != nil { // fallback.go
		a.Close()
		return nil, err
	}
	a.Policy, err = policy.NewEngine(ctx, a.Store, a.Logger)
	if err != nil {
		a.Close()
		return nil, err
	}
	a.catalogRead = a.Policy.WarmCatalog() // read while the rest opens
	a.Settings = settings.New(a.Store, dir)
	// One ranked index, shared by the graph, document memory and
	// knowledge, kept in <data>/search by the process that owns the data
	// directory; another reads it as it is, and each owner of entries
	// brings it up to date by their stamps, so neither rebuilds it.
	if a.Index, err = openIndex(filepath.Join(dir, "search"), a.lock != nil); err != nil {
		if !errors.Is(err, search.ErrRebuild) {
			a.Close()
			return nil, err
		}
		a.Logger.Warn("the search index could not be read; it is being rebuilt", "err", err)
	}
	index := a.Index
	if a.Memory, err = memory.NewGraph(ctx, a.Store, index); err != nil {
		a.Close()
		return nil, err
	}
	if a.Text, err = memory.NewText(filepath.Join(dir, "memory", "text")); err != nil {
		a.Close()
		return nil, err
	}
	if a.Docs, err = memory.NewDocs(ctx, a.Store, index); err != nil {
		a.Close()
		return nil, err
	}
	if a.KB, err = knowledge.Open(filepath.Join(dir, "knowledge"), &knowledge.Options{Index: index, Logger: a.Logger}); err != nil {
		a.Close()
		return nil, err
	}
	keepTraces, traced := cfg.TraceRetention()
	a.startPruning(keepTraces, traced)
	a.startFlushing()
	widgets := pluginhost.NewWidgetBoard() // compiled-in and plugin-folder plugins' web widgets
	a.Kernel = kernel.New(a.Sources, a.Store, &kernel.Options{
		Widgets:         widgets.SetWidgets,
		NoTraces:        !traced,
		Policy:          a.Policy,
		SystemPrompt:    cfg.SystemPrompt,
		MaxSteps:        cfg.MaxSteps,
		MaxToolCalls:    cfg.MaxToolCalls,
		HistoryMessages: cfg.HistoryMessages,
		Logger:          a.Logger,
		Budgets:         cfg.Budgets,

		MaxInjectionsPerMinute: cfg.MaxInjectionsPerMinute,
		Recall:                 a.recaller(), // recall.go
		RecallTokens:           cfg.RecallTokens(),
		Services:               a.pluginServices, // services.go
		Transcriber:            transcriber,
		Recognizer:             recognizer,
	})
	// Plugin channel names stay their first owner's across restarts.
	a.Kernel.Names().SetChannelBinder(a.Store)
	knowPlugins(ctx, a) // tool names keep out of other plugins' name spaces
	// Built-ins first, so their names are theirs: a plugin folder or .so
	// with a built-in's name is refused, even while the built-in is
	// disabled or failed to start (its tools keep their policy overrides).
	for _, name := range sdk.Factories() {
		factory, _ := sdk.Factory(name)
		err := errors.New("disabled in the config")
		if !cfg.BuiltinDisabled(name) {
			err = a.Kernel.LoadPlugin(name, factory, cfg.BuiltinConfig(name))
		}
		switch {
		case err == nil:
			continue
		case errors.Is(err, kernel.ErrHidden):
			a.Logger.Info("plugin hidden", "plugin", name, "reason", err)
			continue // the kernel keeps its name
		case !cfg.BuiltinDisabled(name):
			a.Logger.Error("plugin not loaded", "plugin", name, "err", err)
		}
		if _, cerr := a.Kernel.Names().Claim(name, fmt.Sprintf("the built-in plugin %q (not loaded: %v)", name, err)); cerr != nil {
			a.Logger.Error("built-in plugin name not kept", "plugin", name, "err", cerr)
		}
	}
	mem := a.scopedMemory() // each child's requests act in its own view (pluginhost/memory.go)
	a.Plugins = pluginhost.NewManager(filepath.Join(dir, "plugins"), a.Store, &pluginhost.Options{
		Host: a.Kernel, LLM: a.Sources, Settings: a.Settings, Log: a.Logger, DataDir: dir,
		Memory: mem.graph, TextMemory: mem.text, DocMemory: mem.docs, Knowledge: mem.kb,
		MCPAuth: newMCPAuth(a), Policy: a.Policy, Widgets: widgets,
		OfferCached: o.Plugins == PluginsOffer,
	})
	a.setMCPServers(cfg.MCPServers)
	if a.lock != nil {
		// An upgrade cut short (a crash between setting the old folder
		// aside and installing the new one) is finished before the scan,
		// while this process alone owns the data directory.
		if back, err := pluginhost.RestoreUpgrades(filepath.Join(dir, "plugins")); err != nil {
			a.Logger.Warn("a plugin upgrade cut short could not be finished", "err", err)
		} else if len(back) > 0 {
			a.Logger.Warn("plugin folders put back after an upgrade cut short", "plugins", back)
		}
		if err := a.Plugins.Scan(ctx); err != nil {
			a.Logger.Warn("some plugins could not start", "err", err)
		}
		if o.Plugins == PluginsWait || o.Plugins == PluginsIfFree || o.Plugins == PluginsOffer {
			wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
			a.Plugins.WaitReady(wctx)
			cancel()
		}
		interval := o.WatchInterval
		if interval <= 0 {
			interval = 2 * time.Second
		}
		wctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		a.stopWatch = func() { cancel(); <-done }
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); a.Plugins.Watch(wctx, interval) }()
		go func() { defer wg.Done(); a.watchConfig(wctx, interval) }()
		go func() { wg.Wait(); close(done) }()
	}
	return a, nil
}

// takeLock takes the data directory's lock when the plugins are to run.
func (a *App) takeLock(o Options) error {
	if o.Plugins == PluginsOff {
		return nil
	}
	l, err := datadir.Acquire(a.DataDir)
	var busy *datadir.LockedError
	if errors.As(err, &busy) && o.Plugins == PluginsIfFree {
		a.Busy = busy
		return nil
	}
	if err != nil {
		return err
	}
	a.lock = l
	return nil
}

// openLog opens <data dir>/hearth.log, capped and rotated (10 MiB x 3
// files), with every source's key and anything that looks like a key
// masked in it and in LogTo.
func (a *App) openLog(o Options) error {
	f, err := logfile.Open(filepath.Join(a.DataDir, "hearth.log"), 0, 0)
	if err != nil {
		return err
	}
	a.logFile = f
	mask := func(s string) string { return a.logMask.Load().All(s) }
	var h slog.Handler = slog.NewTextHandler(redact.NewWriter(f, mask), &slog.HandlerOptions{Level: slog.LevelInfo})
	if o.LogTo != nil {
		h = fanout{h, slog.NewTextHandler(redact.NewWriter(o.LogTo, mask), &slog.HandlerOptions{Level: o.LogLevel})}
	}
	a.Logger = slog.New(h)
	return nil
}

// Close stops the kernel and its plugins and closes the store and log.
func (a *App) Close() error {
	var errs []error
	if a.stopWatch != nil {
		a.stopWatch()
	}
	if a.stopPrune != nil {
		a.stopPrune()
	}
	if a.Plugins != nil {
		a.Plugins.Close()
	}
	if a.Kernel != nil {
		errs = append(errs, a.Kernel.Close())
	}
	if a.KB != nil {
		errs = append(errs, a.KB.Close())
	}
	if a.stopFlush != nil {
		a.stopFlush()
	}
	if a.Index != nil {
		errs = append(errs, a.Index.Close())
	}
	if a.catalogRead != nil {
		a.catalogRead()
	}
	if a.Store != nil {
		errs = append(errs, a.Store.Close())
	}
	if a.logFile != nil {
		errs = append(errs, a.logFile.Close())
	}
	// Last: the plugins are stopped, another process may run them now.
	errs = append(errs, a.lock.Release())
	return errors.Join(errs...)
}

// pruneEvery is how often turn traces past their retention are deleted
// while Hearth runs.
const pruneEvery = 24 * time.Hour

// startPruning deletes the turn traces older than keep now and then once
// a day until Close; when turns are not traced it deletes them all, once.
// Only the process that owns the data directory prunes.
func (a *App) startPruning(keep time.Duration, traced bool) {
	if a.lock == nil {
		return
	}
	prune := func() {
		cutoff := time.Now().Add(-keep)
		if !traced {
			cutoff = time.Now().Add(time.Hour)
		}
		n, err := a.Store.PruneTraces(context.Background(), cutoff)
		if err != nil {
			a.Logger.Warn("pruning turn traces failed", "err", err)
		} else if n > 0 {
			a.Logger.Info("pruned old turn traces", "deleted", n)
		}
	}
	prune()
	if !traced {
		return
	}
	stop, done := make(chan struct{}), make(chan struct{})
	a.stopPrune = func() { close(stop); <-done }
	go func() {
		defer close(done)
		tick := time.NewTicker(pruneEvery)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				prune()
			}
		}
	}()
}

// fanout sends records to two handlers.
type fanout [2]slog.Handler

func (f fanout) Enabled(ctx context.Context, l slog.Level) bool {
	return f[0].Enabled(ctx, l) || f[1].Enabled(ctx, l)
}

func (f fanout) Handle(ctx context.Context, r slog.Record) error {
	var errs []error
	for _, h := range f {
		if h.Enabled(ctx, r.Level) {
			errs = append(errs, h.Handle(ctx, r.Clone()))
		}
	}
	return errors.Join(errs...)
}

func (f fanout) WithAttrs(as []slog.Attr) slog.Handler {
	return fanout{f[0].WithAttrs(as), f[1].WithAttrs(as)}
}

func (f fanout) WithGroup(n string) slog.Handler {
	return fanout{f[0].WithGroup(n), f[1].WithGroup(n)}
}
