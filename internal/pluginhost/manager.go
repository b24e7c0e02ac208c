package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

// StateStore keeps enable/disable and reload requests; *store.Store has it.
type StateStore interface {
	PluginStates(ctx context.Context) (map[string]store.PluginState, error)
	SetPluginEnabled(ctx context.Context, id string, enabled bool) error
	RequestPluginReload(ctx context.Context, id string) error
}

// Info describes one plugin folder.
type Info struct {
	ID           string
	Dir          string
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
	procs   map[string]*managed
	bad     map[string]string // folder -> error
	sos     map[string]string // .so plugins tried in this process: "" or why it failed
	started time.Time
}

// soLoader is what .so plugins are loaded into; *kernel.Kernel has it.
type soLoader interface {
	LoadPlugin(name string, factory sdk.NewPlugin, config map[string]any) error
}

type managed struct {
	proc   *Process
	dir    string
	print  string // fingerprint of plugin.json and the program
	loaded time.Time
}

// NewManager returns a manager of the plugins in dir.
func NewManager(dir string, opts Options, st StateStore) *Manager {
	opts.defaults()
	return &Manager{dir: dir, opts: opts, st: st, procs: map[string]*managed{}, bad: map[string]string{}, sos: map[string]string{}, started: time.Now()}
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

// Scan brings the running plugins in line with the folder and the stored
// state.
func (m *Manager) Scan(ctx context.Context) error {
	states, err := m.st.PluginStates(ctx)
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(m.dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	type found struct {
		dir string
		man *Manifest
	}
	want := map[string]found{}
	bad := map[string]string{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(m.dir, e.Name())
		man, err := LoadManifest(dir)
		if errors.Is(err, fs.ErrNotExist) {
			if msg := m.loadSO(e.Name(), dir, states); msg != "" {
				bad[dir] = msg
			}
			continue
		}
		if err != nil {
			bad[dir] = err.Error()
			continue
		}
		if prev, dup := want[man.ID]; dup {
			bad[dir] = fmt.Sprintf("id %q is also used by %s", man.ID, prev.dir)
			continue
		}
		if st, ok := states[man.ID]; ok && !st.Enabled {
			continue
		}
		want[man.ID] = found{dir, man}
	}

	m.mu.Lock()
	m.bad = bad
	var stop []*managed
	for id, mp := range m.procs {
		f, ok := want[id]
		reload := states[id].ReloadAt.After(mp.loaded)
		if !ok || f.dir != mp.dir || fingerprint(f.dir, f.man) != mp.print || reload {
			stop = append(stop, mp)
			delete(m.procs, id)
		}
	}
	m.mu.Unlock()
	for _, mp := range stop {
		if _, again := want[mp.proc.ID()]; again {
			mp.proc.stopForRestart() // a guard keeps refusing until it is back
		} else {
			mp.proc.Stop()
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var errs []error
	for id, f := range want {
		if _, running := m.procs[id]; running {
			continue
		}
		p, err := Start(f.dir, m.opts)
		if err != nil {
			m.opts.Host.Withdraw(f.man.PluginName()) // a guard stopped for a restart
			errs = append(errs, err)
			continue
		}
		m.procs[id] = &managed{proc: p, dir: f.dir, print: fingerprint(f.dir, f.man), loaded: time.Now()}
	}
	return errors.Join(errs...)
}

// loadSO loads <dir>/<name>.so, HomeAgent's dynamic plugin format, once:
// a Go plugin cannot be unloaded, so disabling or replacing it takes effect
// at the next start. It returns why it could not, or "".
func (m *Manager) loadSO(name, dir string, states map[string]store.PluginState) string {
	so := filepath.Join(dir, name+".so")
	if _, err := os.Stat(so); err != nil {
		return ""
	}
	m.mu.Lock()
	msg, done := m.sos[name]
	m.mu.Unlock()
	if done {
		return msg
	}
	if st, ok := states[name]; ok && !st.Enabled {
		return ""
	}
	l, ok := m.opts.Host.(soLoader)
	if !ok {
		return "this host cannot load .so plugins"
	}
	factory, err := LoadSO(so)
	if err == nil {
		err = l.LoadPlugin(name, factory, nil)
	}
	msg = ""
	if err != nil {
		msg = err.Error()
	}
	m.mu.Lock()
	m.sos[name] = msg // never retried: a failed plugin.Open cannot be undone either
	m.mu.Unlock()
	if err != nil {
		return msg
	}
	m.opts.Log.Info("loaded .so plugin (compatibility mode; it runs inside Hearth and cannot be unloaded)", "plugin", name)
	return ""
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
// (or failed), or ctx ends.
func (m *Manager) WaitReady(ctx context.Context) {
	m.mu.Lock()
	procs := make([]*Process, 0, len(m.procs))
	for _, mp := range m.procs {
		procs = append(procs, mp.proc)
	}
	m.mu.Unlock()
	for _, p := range procs {
		_ = p.WaitReady(ctx)
	}
}

// List describes every plugin folder, running or not.
func (m *Manager) List(ctx context.Context) ([]Info, error) {
	states, err := m.st.PluginStates(ctx)
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
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(m.dir, e.Name())
		man, err := LoadManifest(dir)
		if errors.Is(err, fs.ErrNotExist) {
			if _, serr := os.Stat(filepath.Join(dir, e.Name()+".so")); serr == nil {
				info := Info{ID: e.Name(), Dir: dir, Enabled: true, Error: m.bad[dir]}
				if st, ok := states[e.Name()]; ok {
					info.Enabled = st.Enabled
				}
				if msg, tried := m.sos[e.Name()]; tried && msg == "" {
					info.Status = &Status{ID: e.Name(), State: "loaded in process (.so)"}
				}
				out = append(out, info)
			}
			continue
		}
		if err != nil {
			out = append(out, Info{ID: e.Name(), Dir: dir, Error: err.Error()})
			continue
		}
		info := Info{ID: man.ID, Dir: dir, Enabled: true, Capabilities: man.Capabilities}
		if st, ok := states[man.ID]; ok {
			info.Enabled = st.Enabled
		}
		if msg, ok := m.bad[dir]; ok {
			info.Error = msg
		}
		if mp, ok := m.procs[man.ID]; ok && mp.dir == dir {
			st := mp.proc.Status()
			info.Status = &st
		}
		out = append(out, info)
	}
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

// Install copies a plugin folder into the plugins folder and scans.
func (m *Manager) Install(ctx context.Context, src string) (string, error) {
	id, err := InstallFolder(m.dir, src)
	if err != nil {
		return "", err
	}
	return id, m.Scan(ctx)
}

// InstallFolder copies a plugin folder into pluginsDir/<id>. It refuses a
// folder without a valid plugin.json or whose id is taken. A running
// Hearth picks it up at its next scan.
func InstallFolder(pluginsDir, src string) (string, error) {
	man, err := LoadManifest(src)
	if err != nil {
		return "", fmt.Errorf("not a plugin folder: %w", err)
	}
	dst := filepath.Join(pluginsDir, man.ID)
	if _, err := os.Stat(dst); err == nil {
		return "", fmt.Errorf("a plugin %q is already installed in %s", man.ID, dst)
	}
	if err := copyTree(src, dst); err != nil {
		os.RemoveAll(dst)
		return "", fmt.Errorf("copying %s: %w", src, err)
	}
	return man.ID, nil
}

// Close stops every plugin.
func (m *Manager) Close() {
	m.mu.Lock()
	procs := m.procs
	m.procs = map[string]*managed{}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, mp := range procs {
		wg.Add(1)
		go func() { defer wg.Done(); mp.proc.Stop() }()
	}
	wg.Wait()
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case info.Mode().IsRegular():
			in, err := os.Open(path)
			if err != nil {
				return err
			}
			defer in.Close()
			out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, info.Mode().Perm())
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, in); err != nil {
				out.Close()
				return err
			}
			return out.Close()
		default:
			return nil // links and devices are not copied
		}
	})
}
