package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// CatalogEntry is the last known record of a tool, kept so that commands
// that do not start the plugins (hearth policy) can still list the tools
// of child-process, xbot and .so plugins, with their policy.
type CatalogEntry struct {
	Tool     string            // model-visible name
	Plugin   string            // owning plugin
	Effect   string            // as declared; "" counts as write
	Title    string            // the tool's title for users
	Flags    []string          // untrusted, userOnly, grant, ...
	Defaults map[string]string // the plugin's default mode of each effect
	Updated  time.Time         // when this record last changed
}

// CatalogPlugins returns the plugins that have a tool in the catalogue,
// sorted: what a start needs of it before the policy engine reads it
// whole (decoding every record twice took a 1,000-tool plugin's start a
// few milliseconds).
func (s *Store) CatalogPlugins(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT plugin FROM tool_catalog ORDER BY plugin`)
	if err != nil {
		return nil, fmt.Errorf("reading the tool catalogue: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// Catalog returns every recorded tool, by name.
func (s *Store) Catalog(ctx context.Context) ([]CatalogEntry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT tool, plugin, effect, title, flags, defaults, updated_at FROM tool_catalog ORDER BY tool`)
	if err != nil {
		return nil, fmt.Errorf("reading the tool catalogue: %w", err)
	}
	defer rows.Close()
	var out []CatalogEntry
	for rows.Next() {
		var e CatalogEntry
		var flags, defaults string
		var at int64
		if err := rows.Scan(&e.Tool, &e.Plugin, &e.Effect, &e.Title, &flags, &defaults, &at); err != nil {
			return nil, err
		}
		if flags != "" {
			e.Flags = strings.Split(flags, ",")
		}
		if defaults == "{}" {
			// Most tools' (no default modes): read at every start, for
			// every tool ever registered.
			e.Defaults = map[string]string{}
		} else if err := json.Unmarshal([]byte(defaults), &e.Defaults); err != nil {
			return nil, fmt.Errorf("tool catalogue entry %s: %w", e.Tool, err)
		}
		e.Updated = time.UnixMilli(at)
		out = append(out, e)
	}
	return out, rows.Err()
}

// SaveCatalogEntry records (or replaces) a tool's record.
func (s *Store) SaveCatalogEntry(ctx context.Context, e CatalogEntry) error {
	return s.SaveCatalogEntries(ctx, []CatalogEntry{e})
}

// SaveCatalogEntries records (or replaces) tools' records in one
// transaction: a plugin's default modes change the records of all its
// tools at once (a thousand commits would take a plugin's start a tenth
// of a second longer).
func (s *Store) SaveCatalogEntries(ctx context.Context, es []CatalogEntry) error {
	if len(es) == 0 {
		return nil
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st, err := s.w.inTx(ctx, tx, saveCatalogEntry)
	if err != nil {
		return err
	}
	for _, e := range es {
		defaults, err := json.Marshal(e.Defaults)
		if err != nil {
			return err
		}
		if e.Defaults == nil {
			defaults = []byte("{}")
		}
		if e.Updated.IsZero() {
			e.Updated = time.Now()
		}
		if _, err := st.ExecContext(ctx, e.Tool, e.Plugin, e.Effect, e.Title, strings.Join(e.Flags, ","), string(defaults), e.Updated.UnixMilli()); err != nil {
			return fmt.Errorf("recording tool %s: %w", e.Tool, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("recording %d tools in the catalogue: %w", len(es), err)
	}
	return nil
}

const saveCatalogEntry = `INSERT INTO tool_catalog(tool, plugin, effect, title, flags, defaults, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(tool) DO UPDATE SET plugin = excluded.plugin, effect = excluded.effect, title = excluded.title,
			flags = excluded.flags, defaults = excluded.defaults, updated_at = excluded.updated_at`
