package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"time"
)

// PluginState is what the user decided about a plugin folder.
type PluginState struct {
	Enabled  bool
	ReloadAt time.Time // a reload asked for at this time (by any process)
}

// PluginStates returns the stored states; plugins without one are enabled.
func (s *Store) PluginStates(ctx context.Context) (map[string]PluginState, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, enabled, reload_at FROM plugin_state`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]PluginState{}
	for rows.Next() {
		var id string
		var enabled bool
		var at int64
		if err := rows.Scan(&id, &enabled, &at); err != nil {
			return nil, err
		}
		out[id] = PluginState{Enabled: enabled, ReloadAt: time.UnixMilli(at)}
	}
	return out, rows.Err()
}

// SetPluginEnabled enables or disables a plugin, persistently.
func (s *Store) SetPluginEnabled(ctx context.Context, id string, enabled bool) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO plugin_state(id, enabled) VALUES (?, ?)
		ON CONFLICT(id) DO UPDATE SET enabled = excluded.enabled`, id, enabled)
	return err
}

// RequestPluginReload asks every running Hearth to restart the plugin.
func (s *Store) RequestPluginReload(ctx context.Context, id string) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO plugin_state(id, reload_at) VALUES (?, ?)
		ON CONFLICT(id) DO UPDATE SET reload_at = excluded.reload_at`, id, time.Now().UnixMilli())
	return err
}

// nameKey is the form plugin names are kept in: lower case, as package
// names compares them.
func nameKey(name string) string { return strings.ToLower(name) }

// PluginOwners returns the folder (inside the plugins folder) each plugin
// name is bound to, by the name in lower case.
func (s *Store) PluginOwners(ctx context.Context) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name, folder FROM plugin_names`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, folder string
		if err := rows.Scan(&name, &folder); err != nil {
			return nil, err
		}
		out[name] = folder
	}
	return out, rows.Err()
}

// BindPluginName binds name to folder unless it is bound already, and
// returns the folder it is bound to now: folder, or its earlier owner.
func (s *Store) BindPluginName(ctx context.Context, name, folder string) (owner string, err error) {
	err = s.w.QueryRowContext(ctx, `INSERT INTO plugin_names(name, folder, bound_at) VALUES (?, ?, ?)
		ON CONFLICT(name) DO UPDATE SET name = name RETURNING folder`,
		nameKey(name), folder, time.Now().UnixMilli()).Scan(&owner)
	return owner, err
}

// BindChannelName binds the channel name to plugin unless it is bound
// already, and returns the plugin it is bound to now (lower case).
func (s *Store) BindChannelName(ctx context.Context, name, plugin string) (owner string, err error) {
	err = s.w.QueryRowContext(ctx, `INSERT INTO channel_names(name, plugin, bound_at) VALUES (?, ?, ?)
		ON CONFLICT(name) DO UPDATE SET name = name RETURNING plugin`,
		nameKey(name), nameKey(plugin), time.Now().UnixMilli()).Scan(&owner)
	return owner, err
}

// ForgottenPlugin is what ForgetPlugin removed from the database.
type ForgottenPlugin struct {
	Folder    string                                // the folder the name was bound to; "" if none
	Settings  map[string]map[string]json.RawMessage // namespace, key: value (secrets too)
	Defs      map[string]map[string]json.RawMessage // namespace, key: declaration
	KV        map[string]map[string]json.RawMessage // plugin, key: value
	Overrides map[string]string                     // tool: the user's mode for it
	Grants    []Grant                               // what its injections were granted (role plugin:<name>)
	Catalog   []string                              // the tools it had in the catalogue
	Channels  []string                              // the channel names bound to it
}

// Empty reports whether nothing was removed.
func (f *ForgottenPlugin) Empty() bool {
	return f.Folder == "" && len(f.Settings) == 0 && len(f.Defs) == 0 && len(f.KV) == 0 &&
		len(f.Overrides) == 0 && len(f.Grants) == 0 && len(f.Catalog) == 0 && len(f.Channels) == 0
}

// ForgetPlugin removes, in one transaction, everything the database keeps
// under a plugin name (compared without regard to case): its binding to
// a folder, its settings and their declarations, its key-value storage,
// the user's policy modes for its tools (<name>__<tool>), the grants to
// its injections (role plugin:<name>), its tools in the catalogue and
// the channel names bound to it. It
// returns what it removed.
func (s *Store) ForgetPlugin(ctx context.Context, name string) (*ForgottenPlugin, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	key := nameKey(name)
	f := &ForgottenPlugin{Overrides: map[string]string{}}
	err = tx.QueryRowContext(ctx, `DELETE FROM plugin_names WHERE name = ? RETURNING folder`, key).Scan(&f.Folder)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	triples := func(query string) (map[string]map[string]json.RawMessage, error) {
		rows, err := tx.QueryContext(ctx, query, key)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		out := map[string]map[string]json.RawMessage{}
		for rows.Next() {
			var a, b, v string
			if err := rows.Scan(&a, &b, &v); err != nil {
				return nil, err
			}
			if out[a] == nil {
				out[a] = map[string]json.RawMessage{}
			}
			out[a][b] = json.RawMessage(v)
		}
		return out, rows.Err()
	}
	if f.Settings, err = triples(`DELETE FROM settings WHERE lower(namespace) = ? RETURNING namespace, key, value`); err != nil {
		return nil, err
	}
	if f.Defs, err = triples(`DELETE FROM setting_defs WHERE lower(namespace) = ? RETURNING namespace, key, def`); err != nil {
		return nil, err
	}
	if f.KV, err = triples(`DELETE FROM kv WHERE lower(plugin) = ? RETURNING plugin, key, value`); err != nil {
		return nil, err
	}
	prefix := key + "__"
	rows, err := tx.QueryContext(ctx, `DELETE FROM policy_overrides WHERE substr(lower(tool), 1, ?) = ? RETURNING tool, mode`, len(prefix), prefix)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var tool, mode string
		if err := rows.Scan(&tool, &mode); err != nil {
			rows.Close()
			return nil, err
		}
		f.Overrides[tool] = mode
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = tx.QueryContext(ctx, `DELETE FROM policy_grants WHERE lower(role) = ? RETURNING channel, group_id, role, effects`, "plugin:"+key)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var g Grant
		var effects string
		if err := rows.Scan(&g.Channel, &g.Group, &g.Role, &effects); err != nil {
			rows.Close()
			return nil, err
		}
		if effects != "" {
			g.Effects = strings.Split(effects, ",")
		}
		f.Grants = append(f.Grants, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = tx.QueryContext(ctx, `DELETE FROM tool_catalog WHERE lower(plugin) = ? RETURNING tool`, key)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var tool string
		if err := rows.Scan(&tool); err != nil {
			rows.Close()
			return nil, err
		}
		f.Catalog = append(f.Catalog, tool)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = tx.QueryContext(ctx, `DELETE FROM channel_names WHERE plugin = ? RETURNING name`, key)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return nil, err
		}
		f.Channels = append(f.Channels, name)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sort.Strings(f.Catalog)
	return f, tx.Commit()
}
