package store

import (
	"context"
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
	_, err := s.db.ExecContext(ctx, `INSERT INTO plugin_state(id, enabled) VALUES (?, ?)
		ON CONFLICT(id) DO UPDATE SET enabled = excluded.enabled`, id, enabled)
	return err
}

// RequestPluginReload asks every running Hearth to restart the plugin.
func (s *Store) RequestPluginReload(ctx context.Context, id string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO plugin_state(id, reload_at) VALUES (?, ?)
		ON CONFLICT(id) DO UPDATE SET reload_at = excluded.reload_at`, id, time.Now().UnixMilli())
	return err
}
