package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/names"
	"github.com/hearth-agent/hearth/internal/store"
)

// StateStore keeps enable/disable and reload requests, and which folder
// owns each plugin name; *store.Store has it.
type StateStore interface {
	PluginStates(ctx context.Context) (map[string]store.PluginState, error)
	SetPluginEnabled(ctx context.Context, id string, enabled bool) error
	RequestPluginReload(ctx context.Context, id string) error
	NameOwners
	// BindPluginName binds name to folder (a folder name inside the
	// plugins folder) unless it is bound already, and returns its owner.
	BindPluginName(ctx context.Context, name, folder string) (string, error)
}

var _ StateStore = (*store.Store)(nil)

// NameOwners says which folder owns each plugin name.
type NameOwners interface {
	// PluginOwners returns the folder (inside the plugins folder) each
	// plugin name is bound to, by names.Key of the name.
	PluginOwners(ctx context.Context) (map[string]string, error)
}

// Info describes one plugin folder, or one MCP server of config.json.
type Info struct {
	ID  string
	Dir string // empty for an MCP server
	// Kind is how the plugin runs: "process" (the Hearth protocol),
	// "xbot" (xbot's stdio protocol), "so" (a .so run by the loader
	// program, which speaks the Hearth protocol), "mcp"
	// (an MCP server of config.json), or "homeagent" for a HomeAgent
	// folder (plg.json) Hearth cannot load, Error saying why.
	Kind string
	// Runs is, for an MCP server, what it runs: its command line, or its
	// URL with user info and query values masked. Env and header values
	// never appear.
	Runs         string
	Enabled      bool
	Capabilities []string // the groups beyond core its plugin.json declares
	Error        string   // why the folder cannot be used (bad plugin.json)
	Status       *Status  // nil when not running in this process
}

// Manager runs the plugins of one folder: every sub-folder with a
// plugin.json is a plugin. Scan (called by Watch every few seconds) starts
// new and enabled plugins, stops removed and disabled ones, and restarts
// those whose plugin.json or program changed or that a reload was asked
// for, so installing a plugin is copying its folder in.
type Manager struct {
	dir  string
	opts Options
	st   StateStore

	mu      sync.Mutex
	procs   map[string]*managed         // by plugin name
	bad     map[string]string           // folder -> error
	mcp     map[string]config.MCPServer // config.json's MCP servers, by name
	started time.Time

	soMu   sync.Mutex // held while the .so loader is found or built
	loader string     // the .so loader, once found
}

type managed struct {
	proc  *Process
	mcp   bool   // an MCP server of config.json, kept by scanMCP
	id    string // the manifest's id (procs are keyed by plugin name)
	dir   string
	print string // fingerprint of plugin.json and the program
	// reloadAt is the latest reload request when this process started: a
	// later one restarts it. Compared with the request, not the start
	// time, so a reload asked within the millisecond of a start (requests
	// keep milliseconds) is not lost.
	reloadAt time.Time
}

// NewManager returns a manager of the plugins in dir, keeping their state
// in st; opts are those of every plugin it starts (see Start).
func NewManager(dir string, st StateStore, opts *Options) *Manager {
	o := opts.withDefaults()
	if o.NameOwners == nil && st != nil {
		o.NameOwners = st
	}
	return &Manager{dir: dir, opts: o, st: st, procs: map[string]*managed{}, bad: map[string]string{}, started: time.Now()}
}

// Dir returns the plugins folder.
func (m *Manager) Dir() string { return m.dir }

// fingerprint changes when the manifest, or a file the command names (the
// program, a script), changes.
func fingerprint(dir string, man *Manifest) string {
	paths := []string{filepath.Join(dir, ManifestFile)}
	for _, a := range man.Command {
		if !filepath.IsAbs(a) {
			a = filepath.Join(dir, a)
		}
		paths = append(paths, a)
	}
	var out string
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			out += fmt.Sprintf("%s:%d:%d;", p, st.Size(), st.ModTime().UnixNano())
		}
	}
	return out
}

// found is a plugin folder with a valid plugin.json.
type found struct {
	dir      string
	man      *Manifest
	disabled bool // keeps its name, but does not run
	so       bool // a .so folder: man is made up (soManifest)
}

// assign decides which folders may run. A plugin name belongs to the
// folder that first ran under it (owners, by names.Key): every other
// folder asking for it is refused, even while the owner's folder is
// missing or its plugin.json invalid, so that its settings, secrets, KV
// and data folder, all kept by name, never pass to another program; the
// owner runs again when its folder is back. A name no folder owns yet
// goes to the folder already running under it; else the one whose id is
// the name itself (pay over Pay_, which only normalises to it); else the
// one in a folder named after its id (where install puts it); else the
// first in folder order. The others, and a folder whose name another
// loader holds (a built-in plugin, a .so), are refused with a reason
// naming the owner. A disabled plugin keeps its name (and so its tools'
// policy overrides, settings and data folder) without running. The
// caller holds m.mu.
func (m *Manager) assign(list []found, owners map[string]string) (want map[string]found, refused map[string]string) {
	want, refused = map[string]found{}, map[string]string{}
	groups := map[string][]found{}
	var order []string
	for _, f := range list {
		name := f.man.PluginName()
		if _, seen := groups[name]; !seen {
			order = append(order, name)
		}
		groups[name] = append(groups[name], f)
	}
	for _, name := range order {
		group := groups[name]
		var winner found
		if folder, bound := owners[names.Key(name)]; bound {
			dir := filepath.Join(m.dir, folder)
			for _, f := range group {
				if f.dir == dir {
					winner = f
				}
			}
			state := ""
			_, err := os.Stat(dir)
			so, _ := soFile(dir, folder)
			switch {
			case winner.man != nil && winner.disabled:
				state = " (disabled)"
			case errors.Is(err, fs.ErrNotExist):
				state = " (its folder is gone)"
			case winner.man == nil && so == "":
				state = " (its plugin.json does not give it the name now)"
			}
			for _, f := range group {
				if f.dir != dir {
					refused[f.dir] = "not started: " + belongs(name, dir+state)
				}
			}
			if winner.man == nil {
				continue // the owner is away; the name waits for it
			}
		} else {
			rank := func(f found) int {
				switch mp, running := m.procs[name]; {
				case running && mp.dir == f.dir:
					return 0
				case f.man.ID == name:
					if filepath.Base(f.dir) == f.man.ID {
						return 1
					}
					return 2
				case filepath.Base(f.dir) == f.man.ID:
					return 3
				}
				return 4
			}
			winner = group[0]
			for _, f := range group[1:] {
				if rank(f) < rank(winner) {
					winner = f
				}
			}
			by := owner(winner.dir, winner.man)
			if winner.disabled {
				by += ", disabled"
			}
			for _, f := range group {
				if f.dir != winner.dir {
					refused[f.dir] = fmt.Sprintf("not started: the plugin name %q is already used by %s", name, by)
				}
			}
		}
		if winner.disabled {
			continue
		}
		if _, ours := m.procs[name]; !ours {
			if err := m.opts.Names.Check(name); err != nil {
				refused[winner.dir] = "not started: " + err.Error()
				continue
			}
		}
		want[name] = winner
	}
	return want, refused
}

// belongs says that name is dir's, and how to free it.
func belongs(name, dir string) string {
	return fmt.Sprintf("the plugin name %q belongs to the plugin in %s, which keeps its settings, secrets, "+
		"storage and data folder under the name; to free the name, moving those to the trash, run `hearth plugin forget %s`", name, dir, name)
}

// folders reads the plugins folder: the folders with a valid plugin.json
// in folder order, and why the others cannot be used. A .so folder
// (<name>/<name>.so, or HomeAgent's plg.json and plugin.so) runs the .so
// loader (see soFolder).
func (m *Manager) folders(states map[string]store.PluginState) ([]found, map[string]string, error) {
	entries, err := os.ReadDir(m.dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	var list []found
	bad := map[string]string{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(m.dir, e.Name())
		man, err := LoadManifest(dir)
		if errors.Is(err, fs.ErrNotExist) {
			f, msg := soFolder(e.Name(), dir, states, m.knownLoader())
			if msg != "" {
				bad[dir] = msg
			} else if f != nil {
				list = append(list, *f)
			}
			continue
		}
		if err != nil {
			bad[dir] = err.Error()
			continue
		}
		st, ok := states[man.ID]
		list = append(list, found{dir: dir, man: man, disabled: ok && !st.Enabled})
	}
	return list, bad, nil
}

// Scan brings the running plugins in line with the folder and the stored
// state. A plugin name has one owner: a folder whose name is taken (by a
// built-in plugin, a .so, or another folder that got it first) is refused
// and its reason shown by List; it is logged and returned once.
func (m *Manager) Scan(ctx context.Context) error {
	states, err := m.st.PluginStates(ctx)
	if err != nil {
		return err
	}
	owners, err := m.st.PluginOwners(ctx)
	if err != nil {
		return err
	}
	list, bad, err := m.folders(states)
	if err != nil {
		return err
	}

	m.mu.Lock()
	want, refused := m.assign(list, owners)
	// A name about to run is its folder's from now on.
	bound := false
	for name, f := range want {
		if _, ok := owners[names.Key(name)]; ok {
			continue
		}
		by, err := m.st.BindPluginName(ctx, name, filepath.Base(f.dir))
		if err != nil {
			m.mu.Unlock()
			return err
		}
		owners[names.Key(name)], bound = by, true
	}
	if bound {
		want, refused = m.assign(list, owners)
	}
	for dir, msg := range refused {
		bad[dir] = msg
	}
	prevBad := m.bad
	m.bad = bad
	var stop []*managed
	for name, mp := range m.procs {
		if mp.mcp {
			continue
		}
		f, ok := want[name]
		reload := states[mp.id].ReloadAt.After(mp.reloadAt)
		if !ok || f.dir != mp.dir || fingerprint(f.dir, f.man) != mp.print || reload {
			stop = append(stop, mp)
			delete(m.procs, name)
		}
	}
	m.mu.Unlock()
	stopAll(stop, func(mp *managed) {
		if _, again := want[mp.proc.name]; again {
			mp.proc.stopForRestart() // a guard keeps refusing until it is back
		} else {
			mp.proc.Stop() // gives its name back
		}
	})
	m.primeSOLoader(ctx, want)
	m.mu.Lock()
	defer m.mu.Unlock()
	var errs []error
	for dir, msg := range refused {
		if prevBad[dir] != msg {
			errs = append(errs, fmt.Errorf("%s: %s", dir, msg))
		}
	}
	for name, f := range want {
		if _, running := m.procs[name]; running {
			continue
		}
		man, err := m.soResolve(ctx, f)
		if err != nil {
			if prevBad[f.dir] != err.Error() {
				errs = append(errs, fmt.Errorf("%s: %w", f.dir, err))
			}
			m.bad[f.dir] = err.Error()
			continue
		}
		p, err := start(f.dir, man, &m.opts)
		if err != nil {
			if !errors.Is(err, names.ErrTaken) && !errors.Is(err, names.ErrReserved) {
				m.opts.Host.Withdraw(f.man.PluginName()) // a guard stopped for a restart
			}
			if prevBad[f.dir] != err.Error() {
				errs = append(errs, err)
			}
			m.bad[f.dir] = err.Error()
			continue
		}
		m.procs[name] = &managed{proc: p, id: f.man.ID, dir: f.dir, print: fingerprint(f.dir, man), reloadAt: states[f.man.ID].ReloadAt}
	}
	m.mu.Unlock()
	err = m.scanMCP(states)
	m.mu.Lock()
	return errors.Join(append(errs, err)...)
}

// Watch scans every interval until ctx ends, logging failures.
func (m *Manager) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := m.Scan(ctx); err != nil && ctx.Err() == nil {
				m.opts.Log.Warn("scanning plugins", "dir", m.dir, "err", err)
			}
		}
	}
}

// WaitReady waits until every running plugin has finished its handshake
// (or failed), or ctx ends. A plugin whose tools were offered from the
// cache (Options.OfferCached) is not waited for: its tools wait for it.
func (m *Manager) WaitReady(ctx context.Context) {
	m.mu.Lock()
	procs := make([]*Process, 0, len(m.procs))
	for _, mp := range m.procs {
		if !mp.proc.offered() {
			procs = append(procs, mp.proc)
		}
	}
	m.mu.Unlock()
	for _, p := range procs {
		_ = p.WaitReady(ctx)
	}
}

// List describes every plugin folder, running or not. A folder refused
// because its plugin name is taken says by whom, in this process or not.
func (m *Manager) List(ctx context.Context) ([]Info, error) {
	states, err := m.st.PluginStates(ctx)
	if err != nil {
		return nil, err
	}
	owners, err := m.st.PluginOwners(ctx)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(m.dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Info
	var valid []found
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(m.dir, e.Name())
		man, err := LoadManifest(dir)
		kind := "process"
		if errors.Is(err, fs.ErrNotExist) {
			// The loader is not built for a list: the made-up manifest
			// only says which name the folder asks for.
			f, why := soFolder(e.Name(), dir, nil, "")
			if f == nil {
				if why != "" {
					out = append(out, Info{ID: e.Name(), Dir: dir, Kind: "homeagent", Error: why})
				}
				continue
			}
			man, err, kind = f.man, nil, "so"
		}
		if err != nil {
			out = append(out, Info{ID: e.Name(), Dir: dir, Error: err.Error()})
			continue
		}
		info := Info{ID: man.ID, Dir: dir, Kind: kind, Enabled: true, Capabilities: man.Capabilities}
		if man.Xbot() || man.Script() {
			info.Kind = "xbot"
		}
		if st, ok := states[man.ID]; ok {
			info.Enabled = st.Enabled
		}
		valid = append(valid, found{dir: dir, man: man, disabled: !info.Enabled})
		if msg, ok := m.bad[dir]; ok {
			info.Error = msg
		}
		if mp, ok := m.procs[man.PluginName()]; ok && mp.dir == dir {
			st := mp.proc.Status()
			info.Status = &st
		}
		out = append(out, info)
	}
	_, refused := m.assign(valid, owners)
	for i := range out {
		if msg, ok := refused[out[i].Dir]; ok && out[i].Error == "" {
			out[i].Error = msg
		}
	}
	out = append(out, m.listMCP(states)...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// SetEnabled enables or disables a plugin, persistently, and rescans.
func (m *Manager) SetEnabled(ctx context.Context, id string, enabled bool) error {
	if err := m.st.SetPluginEnabled(ctx, id, enabled); err != nil {
		return err
	}
	return m.Scan(ctx)
}

// Reload restarts a plugin here and in any other running Hearth.
func (m *Manager) Reload(ctx context.Context, id string) error {
	if err := m.st.RequestPluginReload(ctx, id); err != nil {
		return err
	}
	return m.Scan(ctx)
}

// RunRemoveHandlers is RunRemoveHandlers with the manager's folder and
// options (the caller holds the data directory's lock; no plugin runs).
// A disabled plugin is not started for it.
func (m *Manager) RunRemoveHandlers(ctx context.Context, st Forgetter, name string) error {
	states, err := m.st.PluginStates(ctx)
	if err != nil {
		return err
	}
	return runRemoveHandlers(ctx, st, m.dir, name, &m.opts, func(id string) bool {
		s, ok := states[id]
		return ok && !s.Enabled
	})
}

// Close stops every plugin.
func (m *Manager) Close() {
	m.mu.Lock()
	procs := m.procs
	m.procs = map[string]*managed{}
	m.mu.Unlock()
	list := make([]*managed, 0, len(procs))
	for _, mp := range procs {
		list = append(list, mp)
	}
	stopAll(list, func(mp *managed) { mp.proc.Stop() })
}

// stopAll runs stop for each process at once and waits for them all: a
// stop can take the grace periods of a plugin that ignores its shutdown,
// which several would otherwise add up.
func stopAll(procs []*managed, stop func(*managed)) {
	var wg sync.WaitGroup
	for _, mp := range procs {
		wg.Add(1)
		go func() { defer wg.Done(); stop(mp) }()
	}
	wg.Wait()
}
