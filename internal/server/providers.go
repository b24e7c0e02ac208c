package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/channel/terminal"
	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/redact"
)

// Model sources ("providers") and the onboarding: list them, add or change
// one (written to config.json and applied at once), test one with a real
// request, switch the current one, delete one. Keys are write-only: an
// answer says whether a source has one, never what it is, and a key is
// masked in the log from the moment it arrives.
//
// The sources listed are those of config.json, and "env", the one made
// from OPENAI_BASE_URL and OPENAI_API_KEY when they are set; "env" can be
// used and tested but not changed or deleted here.

// Provider is one model source as the API shows it.
type Provider struct {
	Name          string `json:"name"`
	BaseURL       string `json:"base_url"`
	Model         string `json:"model"`
	ContextWindow int    `json:"context_window"` // 0: the default known for the model
	// API is the wire format: "openai" or "anthropic".
	API     string `json:"api"`
	Current bool   `json:"current"`
	// KeySet says whether the source has an API key; the key itself is
	// never shown.
	KeySet bool `json:"key_set"`
	// APIKeyEnv names the environment variable the key is read from,
	// when the source takes it so.
	APIKeyEnv string `json:"api_key_env,omitempty"`
	// FromEnv marks the source "env", made from OPENAI_BASE_URL and
	// OPENAI_API_KEY: change those to change it.
	FromEnv bool `json:"from_env"`
	// Rejected says why the provider refused the source's key ("401
	// unauthorized"): it is not called until the key changes or a test
	// passes.
	Rejected string `json:"rejected,omitempty"`
	// Resting, with RestingUntil, says why the source failed last: its
	// calls go to the fallback chain until then (docs/configuration.md).
	Resting      string     `json:"resting,omitempty"`
	RestingUntil *time.Time `json:"resting_until,omitempty"`
}

// ProviderList is GET /v1/providers' answer.
type ProviderList struct {
	// Current is the source in use; empty when none is configured (the
	// web UI then starts the onboarding).
	Current   string     `json:"current"`
	Providers []Provider `json:"providers"`
}

// ProviderUpdate is PUT /v1/providers/{name}'s body. Absent fields keep
// their value; a new source needs base_url, and a model unless Hearth
// knows a default for its host.
type ProviderUpdate struct {
	BaseURL *string `json:"base_url,omitempty"`
	Model   *string `json:"model,omitempty"`
	// APIKey is write-only: it is stored in config.json (mode 0600) and
	// never answered. "" removes the key.
	APIKey *string `json:"api_key,omitempty"`
	// APIKeyEnv reads the key from this environment variable of the
	// daemon instead; setting one clears the other. Over the API the name
	// must end in _API_KEY (config.json written by hand may name any).
	// Changing base_url to another origin (scheme, host, port) needs
	// api_key or api_key_env in the same request: the stored key is not
	// sent to a new address.
	APIKeyEnv     *string `json:"api_key_env,omitempty"`
	ContextWindow *int    `json:"context_window,omitempty"`
	// API is the wire format: "openai" (or "") for chat completions,
	// "anthropic" for Anthropic's Messages API.
	API *string `json:"api,omitempty"`
}

// ProviderTest is POST /v1/providers/{name}/test's answer: the result of
// a one-line chat with the source.
type ProviderTest struct {
	OK        bool   `json:"ok"`
	Model     string `json:"model"`
	LatencyMS int64  `json:"latency_ms"`
	// Error explains a failure for the user (what to check); empty when
	// OK. It never contains the key.
	Error string `json:"error,omitempty"`
}

func (s *Server) providerRoutes() []route {
	return []route{
		{method: "GET", path: "/v1/providers", summary: "The model sources and the current one; keys are never shown.",
			out: ProviderList{}, h: s.listProviders},
		{method: "GET", path: "/v1/providers/presets", summary: "Well-known providers for the onboarding, with base URL and default model.",
			out: PresetList{}, h: s.listPresets},
		{method: "PUT", path: "/v1/providers/{name}", summary: "Add or change a model source (saved to config.json, applied at once).",
			in: ProviderUpdate{}, out: Provider{}, h: s.putProvider},
		{method: "DELETE", path: "/v1/providers/{name}", summary: "Delete a model source (not the current one).",
			h: s.deleteProvider},
		{method: "POST", path: "/v1/providers/{name}/use", summary: "Make a model source the current one (saved to config.json).",
			out: ProviderList{}, h: s.useProvider},
		{method: "POST", path: "/v1/providers/{name}/test", summary: "Test a model source with a one-line chat: ok or the explained error, and the latency.",
			out: ProviderTest{}, h: s.testProvider},
		{method: "GET", path: "/v1/providers/{name}/models", summary: "A model source's models, asked of its provider with its key, with the preset's prices.",
			out: SourceModels{}, h: s.sourceModels},
		{method: "GET", path: "/v1/providers/{name}/balance", summary: "A model source's account balance (DeepSeek, Kimi, SiliconFlow), read with its key.",
			out: SourceBalance{}, h: s.sourceBalance},
	}
}

// sourceState is what the sources are now: config.json's, the live
// names, and the current source as it runs (with --model and HEARTH_MODEL
// applied).
type sourceState struct {
	file    *config.File
	live    []string
	current llm.Source
	sources *llm.Sources
}

func (s *Server) sourceState() (sourceState, error) {
	f, err := loadConfig(s.app.DataDir)
	if err != nil {
		return sourceState{}, err
	}
	st := sourceState{file: f, live: s.app.Sources.ListSources(), sources: s.app.Sources}
	st.current, _ = s.app.Sources.Current()
	return st, nil
}

// source returns the llm.Source name stands for: the current one as it
// runs, "env", or config.json's.
func (st sourceState) source(name string) (llm.Source, bool) {
	switch {
	case name == "":
		return llm.Source{}, false
	case name == st.current.Name:
		return st.current, true
	case name == config.EnvSource:
		return st.sources.Source(name)
	}
	sc, ok := st.file.Sources[name]
	if !ok {
		return llm.Source{}, false
	}
	return liveSource(st.file, name, sc, st.sources.Secrets()), true
}

// provider describes source name, or reports that there is none.
func (st sourceState) provider(name string) (Provider, bool) {
	src, ok := st.source(name)
	if !ok {
		return Provider{}, false
	}
	api := src.API
	if api == "" {
		api = llm.APIOpenAI
	}
	p := Provider{Name: name, BaseURL: src.BaseURL, Model: src.Model, ContextWindow: src.ContextWindow, API: api,
		Current: name == st.current.Name, KeySet: src.APIKey != "", FromEnv: name == config.EnvSource}
	if sc, inFile := st.file.Sources[name]; inFile && !p.FromEnv {
		p.APIKeyEnv = sc.APIKeyEnv
	}
	return p, true
}

func (st sourceState) list() ProviderList {
	names := make([]string, 0, len(st.file.Sources)+1)
	for n := range st.file.Sources {
		names = append(names, n)
	}
	if slices.Contains(st.live, config.EnvSource) && !slices.Contains(names, config.EnvSource) {
		names = append(names, config.EnvSource)
	}
	sort.Strings(names)
	out := ProviderList{Current: st.current.Name, Providers: make([]Provider, 0, len(names))}
	for _, n := range names {
		if p, ok := st.provider(n); ok {
			out.Providers = append(out.Providers, p)
		}
	}
	return out
}

// liveSource is the llm.Source config.json's source name makes, as
// config.ResolveSources would at the next start: the file's top-level
// model, else the source's, else the default for its host (--model and
// HEARTH_MODEL apply from the next start); its key, or the one in the
// daemon's environment variable it names, which is added to secrets (the
// log and the answers mask it) as soon as it is read.
func liveSource(f *config.File, name string, sc config.SourceConfig, secrets *redact.Secrets) llm.Source {
	key := sc.APIKey
	if sc.APIKeyEnv != "" {
		key = os.Getenv(sc.APIKeyEnv)
		secrets.Add(key)
	}
	model := f.Model
	if model == "" {
		model = sc.Model
	}
	if model == "" {
		model = config.GuessModel(sc.BaseURL)
	}
	return llm.Source{Name: name, BaseURL: sc.BaseURL, APIKey: key, Model: model, ContextWindow: sc.ContextWindow, Images: sc.Images,
		ConnectTimeout: time.Duration(sc.ConnectTimeout), FirstByteTimeout: time.Duration(sc.FirstByteTimeout),
		IdleTimeout: time.Duration(sc.IdleTimeout), AnswerTimeout: time.Duration(sc.AnswerTimeout),
		MaxResponseBytes: sc.MaxResponseBytes, API: sc.API, MaxTokens: sc.MaxTokens, ThinkingBudget: sc.ThinkingBudget}
}

// loadConfig reads config.json; a file that is there but does not parse
// is ErrUnparsable.
func loadConfig(dir string) (*config.File, error) {
	f, err := config.Load(dir)
	if err != nil {
		if _, rerr := os.Stat(filepath.Join(dir, config.FileName)); rerr == nil {
			return nil, fmt.Errorf("%w: %w", config.ErrUnparsable, err)
		}
	}
	return f, err
}

// configFailed answers a failure to read or write config.json.
func (s *Server) configFailed(w http.ResponseWriter, err error) {
	if errors.Is(err, config.ErrUnparsable) {
		writeError(w, http.StatusConflict, "config_unparsable", err.Error())
		return
	}
	s.log.Error("providers: config.json", "err", err)
	writeError(w, http.StatusInternalServerError, "config_failed", err.Error())
}

func (s *Server) listProviders(w http.ResponseWriter, r *http.Request) {
	st, err := s.sourceState()
	if err != nil {
		s.configFailed(w, err)
		return
	}
	list := st.list()
	for i := range list.Providers {
		p := &list.Providers[i]
		p.Rejected, _ = s.app.Sources.Rejected(p.Name)
		if why, until, ok := s.app.Sources.Resting(p.Name); ok {
			p.Resting, p.RestingUntil = why, &until
		}
	}
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) putProvider(w http.ResponseWriter, r *http.Request) {
	var u ProviderUpdate
	if !decodeJSON(w, r, &u) {
		return
	}
	name := r.PathValue("name")
	s.providersMu.Lock()
	defer s.providersMu.Unlock()
	f, err := loadConfig(s.app.DataDir)
	if err != nil {
		s.configFailed(w, err)
		return
	}
	old, exists := f.Sources[name]
	sc, fields := checkProviderUpdate(name, exists, old, u)
	if len(fields) > 0 {
		writeFieldErrors(w, "the source was not saved: some fields are invalid", fields)
		return
	}
	// The log masks the key before anything could write it.
	s.app.Sources.Secrets().Add(sc.APIKey)
	if err := config.PutSource(s.app.DataDir, name, sc); err != nil {
		s.configFailed(w, err)
		return
	}
	s.app.Sources.Put(liveSource(f, name, sc, s.app.Sources.Secrets()))
	if s.app.Sources.CurrentSource() == "" {
		// The first source of a fresh Hearth: use it.
		if err := s.use(name); err != nil {
			s.configFailed(w, err)
			return
		}
	}
	s.log.Info("model source saved", "source", name, "base_url", sc.BaseURL, "model", sc.Model, "key_set", sc.APIKey != "")
	st, err := s.sourceState()
	if err != nil {
		s.configFailed(w, err)
		return
	}
	p, _ := st.provider(name)
	writeJSON(w, http.StatusOK, p)
}

// use makes source name current, live and in config.json ("env" only
// live: it is not in the file).
func (s *Server) use(name string) error {
	if name != config.EnvSource {
		if err := config.SetCurrentSource(s.app.DataDir, name); err != nil {
			return err
		}
	}
	return s.app.Sources.SetSource(name)
}

func (s *Server) useProvider(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	s.providersMu.Lock()
	defer s.providersMu.Unlock()
	st, err := s.sourceState()
	if err != nil {
		s.configFailed(w, err)
		return
	}
	src, ok := st.source(name)
	if !ok {
		writeError(w, http.StatusNotFound, "unknown_provider", "there is no model source "+quote(name))
		return
	}
	if name != st.current.Name && name != config.EnvSource {
		s.app.Sources.Put(src) // config.json's, as it is now
	}
	if err := s.use(name); err != nil {
		s.configFailed(w, err)
		return
	}
	s.log.Info("model source switched", "source", name)
	if st, err = s.sourceState(); err != nil {
		s.configFailed(w, err)
		return
	}
	writeJSON(w, http.StatusOK, st.list())
}

func (s *Server) deleteProvider(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	s.providersMu.Lock()
	defer s.providersMu.Unlock()
	st, err := s.sourceState()
	if err != nil {
		s.configFailed(w, err)
		return
	}
	p, ok := st.provider(name)
	switch {
	case !ok:
		writeError(w, http.StatusNotFound, "unknown_provider", "there is no model source "+quote(name))
		return
	case p.FromEnv:
		writeError(w, http.StatusConflict, "from_env", "the source env comes from OPENAI_BASE_URL and OPENAI_API_KEY: unset them to remove it")
		return
	case p.Current:
		writeError(w, http.StatusConflict, "current_provider", "the source "+quote(name)+" is in use: switch to another one first")
		return
	}
	if err := config.DeleteSource(s.app.DataDir, name); err != nil {
		s.configFailed(w, err)
		return
	}
	if err := s.app.Sources.Remove(name); err != nil {
		s.configFailed(w, err)
		return
	}
	s.log.Info("model source deleted", "source", name)
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) testProvider(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	st, err := s.sourceState()
	if err != nil {
		s.configFailed(w, err)
		return
	}
	src, ok := st.source(name)
	if !ok {
		writeError(w, http.StatusNotFound, "unknown_provider", "there is no model source "+quote(name))
		return
	}
	writeJSON(w, http.StatusOK, s.tryProvider(r.Context(), src))
}

// tryProvider sends src a one-line chat, without retries (TryProvider).
func (s *Server) tryProvider(ctx context.Context, src llm.Source) ProviderTest {
	return TryProvider(ctx, s.app, src, s.log)
}

// TryProvider sends src a one-line chat, without retries. When the
// provider had refused src's key and answers now, the mark is cleared:
// the source is used again, by this process and after a restart.
func TryProvider(ctx context.Context, a *app.App, src llm.Source, log *slog.Logger) ProviderTest {
	start := time.Now()
	err := llm.Probe(ctx, src, a.Sources.HTTP, a.Sources.Secrets().All)
	res := ProviderTest{OK: err == nil, Model: src.Model, LatencyMS: time.Since(start).Milliseconds()}
	running, _ := a.Sources.Source(src.Name)
	if _, marked := a.Sources.Rejected(src.Name); err == nil && marked && src.APIKey == running.APIKey {
		// The key the provider refused works now: the source is used again.
		a.Sources.ClearRejected(src.Name)
		if err := a.Store.ClearRejectedKey(context.WithoutCancel(ctx), src.Name); err != nil {
			log.Warn("clearing a rejected key's mark", "source", src.Name, "err", err)
		}
	}
	if err != nil {
		res.Error = a.Sources.Secrets().All(terminal.Explain(err, src, filepath.Join(a.DataDir, config.FileName)))
	}
	return res
}

// quote writes a name in double quotes, as Go does.
func quote(s string) string { return strconv.Quote(s) }
