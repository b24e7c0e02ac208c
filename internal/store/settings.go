package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// Setting returns a stored setting's JSON value; ok is false if it is not
// set.
func (s *Store) Setting(ctx context.Context, namespace, key string) (value json.RawMessage, ok bool, err error) {
	return s.jsonValue(ctx, `SELECT value FROM settings WHERE namespace = ? AND key = ?`, namespace, key)
}

// jsonValue runs a query for one JSON value; ok is false for no row.
func (s *Store) jsonValue(ctx context.Context, query, scope, key string) (json.RawMessage, bool, error) {
	var v string
	err := s.db.QueryRowContext(ctx, query, scope, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return json.RawMessage(v), true, nil
}

// SetSetting stores a setting's JSON value.
func (s *Store) SetSetting(ctx context.Context, namespace, key string, value json.RawMessage) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO settings(namespace, key, value) VALUES (?, ?, ?)
		ON CONFLICT(namespace, key) DO UPDATE SET value = excluded.value`, namespace, key, string(value))
	return err
}

// ApplySettings stores set's values and removes remove's keys of one
// namespace in one transaction: all of them or none.
func (s *Store) ApplySettings(ctx context.Context, namespace string, set map[string]json.RawMessage, remove []string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for key, value := range set {
		if _, err := tx.ExecContext(ctx, `INSERT INTO settings(namespace, key, value) VALUES (?, ?, ?)
			ON CONFLICT(namespace, key) DO UPDATE SET value = excluded.value`, namespace, key, string(value)); err != nil {
			return err
		}
	}
	for _, key := range remove {
		if _, err := tx.ExecContext(ctx, `DELETE FROM settings WHERE namespace = ? AND key = ?`, namespace, key); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// SettingKeys returns a namespace's keys that start with prefix, sorted.
func (s *Store) SettingKeys(ctx context.Context, namespace, prefix string) ([]string, error) {
	return s.keys(ctx, `SELECT key FROM settings WHERE namespace = ? ORDER BY key`, namespace, prefix)
}

func (s *Store) keys(ctx context.Context, query, scope, prefix string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, query, scope)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	keys := []string{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	return keys, rows.Err()
}

// AllSettings returns every stored setting by namespace.
func (s *Store) AllSettings(ctx context.Context) (map[string]map[string]json.RawMessage, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT namespace, key, value FROM settings ORDER BY namespace, key`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]map[string]json.RawMessage{}
	for rows.Next() {
		var ns, k, v string
		if err := rows.Scan(&ns, &k, &v); err != nil {
			return nil, err
		}
		if out[ns] == nil {
			out[ns] = map[string]json.RawMessage{}
		}
		out[ns][k] = json.RawMessage(v)
	}
	return out, rows.Err()
}

// KVGet returns a plugin's stored value; ok is false if there is none.
func (s *Store) KVGet(ctx context.Context, plugin, key string) (value json.RawMessage, ok bool, err error) {
	return s.jsonValue(ctx, `SELECT value FROM kv WHERE plugin = ? AND key = ?`, plugin, key)
}

// KVSet stores a plugin's value.
func (s *Store) KVSet(ctx context.Context, plugin, key string, value json.RawMessage) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO kv(plugin, key, value, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT(plugin, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		plugin, key, string(value), time.Now().UnixMilli())
	return err
}

// KVDelete removes a plugin's value; removing one that is not there is
// not an error.
func (s *Store) KVDelete(ctx context.Context, plugin, key string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM kv WHERE plugin = ? AND key = ?`, plugin, key)
	return err
}

// SetSettingDef stores a setting's declaration (a ConfigDef as JSON), so
// that processes which did not start the plugin (the CLI) know it.
func (s *Store) SetSettingDef(ctx context.Context, namespace, key string, def json.RawMessage) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO setting_defs(namespace, key, def) VALUES (?, ?, ?)
		ON CONFLICT(namespace, key) DO UPDATE SET def = excluded.def`, namespace, key, string(def))
	return err
}

// SettingDefs returns every stored declaration by namespace and key.
func (s *Store) SettingDefs(ctx context.Context) (map[string]map[string]json.RawMessage, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT namespace, key, def FROM setting_defs`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]map[string]json.RawMessage{}
	for rows.Next() {
		var ns, k, d string
		if err := rows.Scan(&ns, &k, &d); err != nil {
			return nil, err
		}
		if out[ns] == nil {
			out[ns] = map[string]json.RawMessage{}
		}
		out[ns][k] = json.RawMessage(d)
	}
	return out, rows.Err()
}
