package pluginrpc

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// remoteSettings is the SettingsAPI of a child plugin: calls to the host,
// which allows each group only if plugin.json declares it ("settings" for
// the plugin's own, "settings.core" for Hearth's, "settings.plugins" for
// reading other plugins', whose secrets come masked, "settings.plugins.write"
// for writing them, never their secrets). core.daemon.data_dir and
// DataDir are answered here: the plugin's own data directory.
type remoteSettings struct {
	conn *wire.Conn
	dir  string
	log  *slog.Logger
}

var _ sdk.SettingsAPI = remoteSettings{}

func (r remoteSettings) value(method string, p wire.SettingParams) (any, error) {
	var res wire.ValueResult
	if err := r.conn.Call(context.Background(), method, p, &res); err != nil {
		return nil, err
	}
	if !res.Found {
		return nil, fmt.Errorf("%s: %w", p.Key, sdk.ErrNotFound)
	}
	var v any
	if err := json.Unmarshal(res.Value, &v); err != nil {
		return nil, fmt.Errorf("%s: %w", p.Key, err)
	}
	return v, nil
}

func (r remoteSettings) set(method string, p wire.SettingParams, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("setting %s: the value cannot be encoded as JSON: %w", p.Key, err)
	}
	p.Value = raw
	return r.conn.Call(context.Background(), method, p, nil)
}

func (r remoteSettings) keys(method string, p wire.SettingParams) ([]string, error) {
	var out []string
	err := r.conn.Call(context.Background(), method, p, &out)
	return out, err
}

func (r remoteSettings) Get(key string) (any, error) {
	return r.value(wire.MethodSettingsGet, wire.SettingParams{Key: key})
}

func (r remoteSettings) Set(key string, v any) error {
	return r.set(wire.MethodSettingsSet, wire.SettingParams{Key: key}, v)
}

func (r remoteSettings) List(prefix string) ([]string, error) {
	return r.keys(wire.MethodSettingsList, wire.SettingParams{Prefix: prefix})
}

// GetCore answers core.daemon.data_dir (and daemon.data_dir, the name
// some HomeAgent plugins use), which HomeAgent plugins read at start to
// find where to keep files, with the plugin's own data directory (a child
// process has no business in Hearth's); other keys are asked of the host.
func (r remoteSettings) GetCore(key string) (any, error) {
	if key == "core.daemon.data_dir" || key == "daemon.data_dir" {
		return r.DataDir(), nil
	}
	return r.value(wire.MethodSettingsGetCore, wire.SettingParams{Key: key})
}

func (r remoteSettings) SetCore(key string, v any) error {
	return r.set(wire.MethodSettingsSetCore, wire.SettingParams{Key: key}, v)
}

func (r remoteSettings) ListCore(prefix string) ([]string, error) {
	return r.keys(wire.MethodSettingsListCore, wire.SettingParams{Prefix: prefix})
}

func (r remoteSettings) GetPlugin(plugin, key string) (any, error) {
	return r.value(wire.MethodSettingsGetOther, wire.SettingParams{Plugin: plugin, Key: key})
}

func (r remoteSettings) SetPlugin(plugin, key string, v any) error {
	return r.set(wire.MethodSettingsSetOther, wire.SettingParams{Plugin: plugin, Key: key}, v)
}

func (r remoteSettings) ListPlugin(plugin, prefix string) ([]string, error) {
	return r.keys(wire.MethodSettingsListOther, wire.SettingParams{Plugin: plugin, Prefix: prefix})
}

func (r remoteSettings) RegisterDef(def sdk.ConfigDef) {
	if err := r.conn.Call(context.Background(), wire.MethodSettingsRegister, def, nil); err != nil {
		r.log.Error("setting not declared", "key", def.Key, "err", err)
	}
}

func (r remoteSettings) Defs(prefix string) []*sdk.ConfigDef {
	var out []*sdk.ConfigDef
	if err := r.conn.Call(context.Background(), wire.MethodSettingsDefs, wire.SettingParams{Prefix: prefix}, &out); err != nil {
		r.log.Error("reading setting declarations", "err", err)
	}
	return out
}

func (r remoteSettings) Dump() map[string]any {
	var out map[string]any
	if err := r.conn.Call(context.Background(), wire.MethodSettingsDump, struct{}{}, &out); err != nil {
		r.log.Error("reading all settings", "err", err)
	}
	return out
}

func (r remoteSettings) Plugins() []string {
	out, err := r.keys(wire.MethodSettingsPlugins, wire.SettingParams{})
	if err != nil {
		r.log.Error("reading the plugins with settings", "err", err)
	}
	return out
}

func (r remoteSettings) DataDir() string {
	if r.dir != "" {
		_ = os.MkdirAll(r.dir, 0o700)
	}
	return r.dir
}

// remoteKV is a child plugin's key-value storage, kept by the host (group
// "kv").
type remoteKV struct{ conn *wire.Conn }

var _ sdk.KV = remoteKV{}

func (r remoteKV) Get(ctx context.Context, key string, v any) (bool, error) {
	var res wire.ValueResult
	if err := r.conn.Call(ctx, wire.MethodKVGet, wire.KVParams{Key: key}, &res); err != nil || !res.Found {
		return false, err
	}
	return true, json.Unmarshal(res.Value, v)
}

func (r remoteKV) Set(ctx context.Context, key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("kv %q: the value cannot be encoded as JSON: %w", key, err)
	}
	return r.conn.Call(ctx, wire.MethodKVSet, wire.KVParams{Key: key, Value: raw}, nil)
}

func (r remoteKV) Delete(ctx context.Context, key string) error {
	return r.conn.Call(ctx, wire.MethodKVDelete, wire.KVParams{Key: key}, nil)
}

// remoteMemory is a child plugin's graph, text and document memory, kept
// by the host (group "memory"). Each request carries the call token of
// the host request being served (token).
type remoteMemory struct {
	conn  *wire.Conn
	log   *slog.Logger
	token func() string
}

var (
	_ sdk.MemoryAPI     = remoteMemory{}
	_ sdk.TextMemoryAPI = remoteMemory{}
	_ sdk.DocMemoryAPI  = remoteMemory{}
)

func (r remoteMemory) call(method string, params, result any) error {
	return r.conn.Call(context.Background(), method, params, result)
}

func (r remoteMemory) Recall(query []string, depth int) ([]sdk.Entity, []sdk.Relation, error) {
	var res wire.RecallResult
	err := r.call(wire.MethodMemoryRecall, wire.RecallParams{Query: query, Depth: depth, CallToken: r.token()}, &res)
	return res.Entities, res.Relations, err
}

func (r remoteMemory) Commit(triples []sdk.Triple) error {
	return r.call(wire.MethodMemoryCommit, wire.CommitParams{Triples: triples, CallToken: r.token()}, nil)
}

func (r remoteMemory) Introspect() (map[string]any, error) {
	var out map[string]any
	err := r.call(wire.MethodMemoryIntrospect, wire.TokenParams{CallToken: r.token()}, &out)
	return out, err
}

func (r remoteMemory) MergeEntities(source, target string) (int, error) {
	var res wire.CountResult
	err := r.call(wire.MethodMemoryMerge, wire.MergeParams{Source: source, Target: target, CallToken: r.token()}, &res)
	return res.Count, err
}

func (r remoteMemory) Purge(criteria map[string]string, mode string) (int, error) {
	var res wire.CountResult
	err := r.call(wire.MethodMemoryPurge, wire.PurgeParams{Criteria: criteria, Mode: mode, CallToken: r.token()}, &res)
	return res.Count, err
}

func (r remoteMemory) Append(evt sdk.TextEvent) error {
	return r.call(wire.MethodMemoryAppendText, wire.AppendTextParams{TextEvent: evt, CallToken: r.token()}, nil)
}

func (r remoteMemory) Query(text string, topK int) []*sdk.Doc {
	var out []*sdk.Doc
	if err := r.call(wire.MethodMemoryDocQuery, wire.SearchParams{Query: text, TopK: topK, CallToken: r.token()}, &out); err != nil {
		r.log.Error("document memory query failed", "err", err)
	}
	return out
}

func (r remoteMemory) Insert(doc *sdk.Doc) error {
	var res wire.DocParams
	if err := r.call(wire.MethodMemoryDocInsert, wire.DocInsertParams{Doc: *doc, CallToken: r.token()}, &res); err != nil {
		return err
	}
	doc.ID = res.ID
	return nil
}

func (r remoteMemory) Remove(id string) {
	if err := r.call(wire.MethodMemoryDocRemove, wire.DocParams{ID: id, CallToken: r.token()}, nil); err != nil {
		r.log.Error("document memory remove failed", "id", id, "err", err)
	}
}

func (r remoteMemory) Stats() map[string]any {
	var out map[string]any
	if err := r.call(wire.MethodMemoryDocStats, wire.TokenParams{CallToken: r.token()}, &out); err != nil {
		r.log.Error("document memory stats failed", "err", err)
	}
	return out
}

// remoteKnowledge is a child plugin's view of the knowledge base (group
// "knowledge"), with the call token as remoteMemory's.
type remoteKnowledge struct {
	conn  *wire.Conn
	token func() string
}

var _ sdk.KnowledgeAPI = remoteKnowledge{}

func (r remoteKnowledge) Search(query string, topK int) ([]*sdk.Knowledge, error) {
	var out []*sdk.Knowledge
	err := r.conn.Call(context.Background(), wire.MethodKnowledgeSearch, wire.SearchParams{Query: query, TopK: topK, CallToken: r.token()}, &out)
	return out, err
}

func (r remoteKnowledge) Add(name, content string) error {
	return r.conn.Call(context.Background(), wire.MethodKnowledgeAdd, wire.KnowledgeParams{Name: name, Content: content, CallToken: r.token()}, nil)
}

func (r remoteKnowledge) List() ([]string, error) {
	var out []string
	err := r.conn.Call(context.Background(), wire.MethodKnowledgeList, wire.TokenParams{CallToken: r.token()}, &out)
	return out, err
}
