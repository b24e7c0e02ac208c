// Package store is Hearth's embedded storage: one SQLite database in the
// data directory (pure-Go driver, WAL journal, versioned migrations) that
// later features add their tables to.
//
// It is the only package that writes SQL. Each consumer reaches it through
// a small interface of its own that names just the methods it calls:
// kernel.History (sessions and their messages), policy.Store and
// policy.CatalogStore (modes, roles, grants, approvals, the audit log, the
// tool catalogue), settings.Store (settings, their declarations, plugin
// key-value storage), memory.GraphStore and memory.DocStore, and
// pluginhost.StateStore and pluginhost.Forgetter. The records they pass
// (Message, Approval, AuditEntry, Entity, ...) are this package's and hold
// no provider or SDK type, so another backend (PostgreSQL) is a type with
// the same methods over the same records. storetest.Faulty wraps a Store
// to fail writes on cue.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// FileName is the database's name inside the data directory.
const FileName = "hearth.db"

// Store is the open database, through two pools of connections: db reads
// (several at once, as WAL allows, and read-only, so a write sent there by
// mistake fails), w writes. w has a single connection: writers queue for
// it in Go, in order, instead of each taking SQLite's write lock in turn
// and sleeping in its busy handler when another holds it, which under
// load (200 turns at once) cost a quarter of the throughput and second-long
// waits. Other processes on the same file still meet busy_timeout.
type Store struct {
	db   *pool // reads
	w    *pool // writes, and transactions
	ckpt *checkpointer
	path string

	sessions sessionCache
}

// pool is a database/sql pool that prepares each query once and keeps the
// statement: otherwise SQLite parses the same SQL on every call, a sixth
// of the CPU a turn costs the daemon. Queries built at run time (a filter
// with optional parts) are few; past maxStmts distinct ones, the rest are
// run unprepared.
type pool struct {
	*sql.DB
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
	wrote func() // the write pool's: tells the checkpointer (checkpoint.go)
}

const maxStmts = 256

func newPool(db *sql.DB) *pool { return &pool{DB: db, stmts: map[string]*sql.Stmt{}} }

// stmt returns query's statement, or nil when it is not kept. It does
// not hold p.mu while preparing: preparing waits for a connection, and on
// the write pool the only one may belong to a transaction that is itself
// about to look a statement up (inTx).
func (p *pool) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	p.mu.Lock()
	st, ok := p.stmts[query]
	full := len(p.stmts) >= maxStmts
	p.mu.Unlock()
	if ok || full {
		return st, nil
	}
	st, err := p.DB.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if kept, ok := p.stmts[query]; ok { // prepared meanwhile by another caller
		st.Close()
		return kept, nil
	}
	p.stmts[query] = st
	return st, nil
}

// inTx returns query's statement for use in tx (closed with it): the
// kept one, compiled already, when there is one. It never prepares one
// for the pool: the write pool's only connection is tx's, so that would
// wait for tx forever. The queries run in transactions on every turn are
// prepared when the store opens (txQueries).
func (p *pool) inTx(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	p.mu.Lock()
	st := p.stmts[query]
	p.mu.Unlock()
	if st == nil {
		return tx.PrepareContext(ctx, query)
	}
	return tx.StmtContext(ctx, st), nil
}

// ExecContext runs query through its kept statement.
func (p *pool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	p.noteWrite()
	st, err := p.stmt(ctx, query)
	if err != nil || st == nil {
		return p.DB.ExecContext(ctx, query, args...)
	}
	return st.ExecContext(ctx, args...)
}

// QueryContext runs query through its kept statement.
func (p *pool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	p.noteWrite()
	st, err := p.stmt(ctx, query)
	if err != nil || st == nil {
		return p.DB.QueryContext(ctx, query, args...)
	}
	return st.QueryContext(ctx, args...)
}

// QueryRowContext runs query through its kept statement.
func (p *pool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	p.noteWrite()
	st, err := p.stmt(ctx, query)
	if err != nil || st == nil {
		return p.DB.QueryRowContext(ctx, query, args...) // says what is wrong with it
	}
	return st.QueryRowContext(ctx, args...)
}

// BeginTx begins a transaction (database/sql's), noting the write.
func (p *pool) BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error) {
	p.noteWrite()
	return p.DB.BeginTx(ctx, opts)
}

func (p *pool) noteWrite() {
	if p.wrote != nil {
		p.wrote()
	}
}

// readConns bounds the read pool: SQLite reads are short, and each
// connection keeps its own page cache.
const readConns = 4

// readCacheKiB is the page cache of each read connection, in KiB:
// SQLite's default is 2,000 KiB a connection, which the pool's four
// caches would fill to 8 MB resident for as long as the process lives
// once reads have touched that much of a large database. Pages a
// connection's cache does not hold are read again from the OS page
// cache. The write connection keeps the default.
const readCacheKiB = 512

// connMaxIdle is how long a connection of the read or write pool is kept
// unused before it is closed. Each holds its page cache (up to
// readCacheKiB for a reader, 2 MB for the writer) and SQLite's other
// per-connection memory; after a burst of turns that used every reader,
// the idle daemon gives it back instead of keeping it for as long as it
// lives (1.0–1.3 MiB of resident memory on a 35 MB database; see
// docs/benchmarks.md). A connection opened again applies the pragmas of
// its DSN and prepares kept statements as it is handed them. A variable
// for tests.
var connMaxIdle = 2 * time.Minute

// Open opens (creating if needed) the database in dir and brings its
// schema up to date.
func Open(ctx context.Context, dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating data directory: %w", err)
	}
	return OpenFile(ctx, filepath.Join(dir, FileName))
}

// OpenFile opens the database at path and migrates it. The database is
// private to the user whatever the umask: the file is created 0600 before
// SQLite opens it (SQLite gives its -wal and -shm files the database's
// mode), and an existing database, WAL or SHM file readable by others is
// made private.
func OpenFile(ctx context.Context, path string) (*Store, error) {
	if err := private(path); err != nil {
		return nil, err
	}
	if err := toWAL(ctx, path); err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	dsn := "file:" + path + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)" +
		"&_pragma=foreign_keys(ON)&_pragma=synchronous(NORMAL)"
	w, err := sql.Open("sqlite", dsn+"&_txlock=immediate"+
		"&_pragma=wal_autocheckpoint("+strconv.Itoa(backstopPages)+")") // see checkpoint.go
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(connMaxIdle)
	db, err := sql.Open("sqlite", dsn+"&_pragma=query_only(1)"+
		"&_pragma=cache_size("+strconv.Itoa(-readCacheKiB)+")")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	db.SetMaxOpenConns(readConns)
	db.SetMaxIdleConns(readConns)
	db.SetConnMaxIdleTime(connMaxIdle)
	cdb, err := sql.Open("sqlite", dsn)
	if err != nil {
		w.Close()
		db.Close()
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	ckpt := newCheckpointer(cdb)
	s := &Store{db: newPool(db), w: newPool(w), path: path, ckpt: ckpt}
	s.w.wrote = ckpt.wrote
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("migrating %s: %w", path, err)
	}
	for _, q := range txQueries {
		if _, err := s.w.stmt(ctx, q); err != nil {
			s.Close()
			return nil, fmt.Errorf("opening %s: %w", path, err)
		}
	}
	return s, nil
}

// toWAL puts the database in WAL mode, which it keeps. Switching a new
// database needs its exclusive lock, and SQLite answers SQLITE_BUSY at
// once, without waiting out busy_timeout, when another connection
// switching it at the same moment holds a lock this one would deadlock
// on; so the switch is tried again for a while. Once the database is in
// WAL mode, the journal_mode pragma of every later connection is a no-op.
func toWAL(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return err
	}
	defer db.Close()
	deadline := time.Now().Add(5 * time.Second)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		var mode string
		err := db.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// isBusy reports whether err is SQLite's "database is locked".
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// private creates the database file 0600 if it is missing and takes the
// group and world permissions away from it and its WAL and SHM files.
func private(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("opening %s: %w", path, err)
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("checking %s: %w", p, err)
		}
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			if err := os.Chmod(p, perm&^0o077); err != nil {
				return fmt.Errorf("making %s private: %w", p, err)
			}
		}
	}
	return nil
}

// Shared reports that other processes may change the records: every
// Hearth and `hearth` command on the data directory opens this database.
func (s *Store) Shared() bool { return true }

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error {
	var err error
	if s.ckpt != nil {
		err = s.ckpt.close()
	}
	return errors.Join(err, s.w.Close(), s.db.Close())
}

// Migration is one schema change. Versions are applied in order, each in
// its own transaction, and recorded in schema_migrations.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// migrations is the schema's history. Append only: never edit a released
// migration.
var migrations = []Migration{
	{1, "sessions and messages", `
CREATE TABLE sessions (
	id         INTEGER PRIMARY KEY,
	channel    TEXT NOT NULL,
	chat_id    TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	UNIQUE (channel, chat_id)
);
CREATE TABLE messages (
	id           INTEGER PRIMARY KEY,
	session_id   INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	role         TEXT NOT NULL,
	content      TEXT NOT NULL DEFAULT '',
	reasoning    TEXT NOT NULL DEFAULT '',
	tool_calls   TEXT NOT NULL DEFAULT '',
	tool_call_id TEXT NOT NULL DEFAULT '',
	name         TEXT NOT NULL DEFAULT '',
	created_at   INTEGER NOT NULL
);
CREATE INDEX messages_by_session ON messages(session_id, id);
`},
	{2, "tool policy: overrides, roles, approvals, audit", `
CREATE TABLE policy_overrides (
	tool       TEXT PRIMARY KEY,
	mode       TEXT NOT NULL CHECK (mode IN ('auto', 'ask', 'off')),
	updated_at INTEGER NOT NULL
);
CREATE TABLE policy_roles (
	channel  TEXT NOT NULL,
	group_id TEXT NOT NULL DEFAULT '',
	user_id  TEXT NOT NULL,
	role     TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'guest')),
	PRIMARY KEY (channel, group_id, user_id)
);
CREATE TABLE policy_grants (
	channel  TEXT NOT NULL DEFAULT '',
	group_id TEXT NOT NULL DEFAULT '',
	role     TEXT NOT NULL,
	effects  TEXT NOT NULL,
	PRIMARY KEY (channel, group_id, role)
);
CREATE TABLE approvals (
	id         INTEGER PRIMARY KEY,
	tool       TEXT NOT NULL,
	effect     TEXT NOT NULL,
	target     TEXT NOT NULL DEFAULT '',
	args_hash  TEXT NOT NULL,
	requester  TEXT NOT NULL,
	session    TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	expires_at INTEGER NOT NULL,
	status     TEXT NOT NULL DEFAULT 'pending',
	decided_by TEXT NOT NULL DEFAULT '',
	decided_at INTEGER
);
CREATE TABLE audit (
	id          INTEGER PRIMARY KEY,
	at          INTEGER NOT NULL,
	session     TEXT NOT NULL,
	channel     TEXT NOT NULL,
	user_id     TEXT NOT NULL,
	role        TEXT NOT NULL,
	actor       TEXT NOT NULL,
	tool        TEXT NOT NULL,
	effect      TEXT NOT NULL,
	args_hash   TEXT NOT NULL,
	decision    TEXT NOT NULL,
	rule        TEXT NOT NULL,
	decided_by  TEXT NOT NULL,
	duration_ms INTEGER NOT NULL,
	outcome     TEXT NOT NULL
);
CREATE INDEX audit_by_time ON audit(at);
CREATE TRIGGER audit_append_only_update BEFORE UPDATE ON audit BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
CREATE TRIGGER audit_append_only_delete BEFORE DELETE ON audit BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
`},
	{3, "plugin state", `
CREATE TABLE plugin_state (
	id        TEXT PRIMARY KEY,
	enabled   INTEGER NOT NULL DEFAULT 1,
	reload_at INTEGER NOT NULL DEFAULT 0
);
`},
	{4, "settings and plugin key-value storage", `
CREATE TABLE settings (
	namespace TEXT NOT NULL, -- "core" or a plugin's name
	key       TEXT NOT NULL,
	value     TEXT NOT NULL, -- JSON
	PRIMARY KEY (namespace, key)
) WITHOUT ROWID;
CREATE TABLE kv (
	plugin     TEXT NOT NULL,
	key        TEXT NOT NULL,
	value      TEXT NOT NULL, -- JSON
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (plugin, key)
) WITHOUT ROWID;
`},
	{5, "setting declarations", `
CREATE TABLE setting_defs (
	namespace TEXT NOT NULL,
	key       TEXT NOT NULL,
	def       TEXT NOT NULL, -- a ConfigDef as JSON
	PRIMARY KEY (namespace, key)
) WITHOUT ROWID;
`},
	{6, "graph and document memory", `
CREATE TABLE mem_entities (
	name          TEXT PRIMARY KEY,
	type          TEXT NOT NULL DEFAULT '',
	mention_count INTEGER NOT NULL DEFAULT 0,
	deleted       INTEGER NOT NULL DEFAULT 0 -- purged softly
) WITHOUT ROWID;
CREATE TABLE mem_relations (
	source   TEXT NOT NULL,
	relation TEXT NOT NULL,
	target   TEXT NOT NULL,
	deleted  INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (source, relation, target)
) WITHOUT ROWID;
CREATE INDEX mem_relations_by_target ON mem_relations(target);
CREATE TABLE mem_docs (
	id         TEXT PRIMARY KEY,
	title      TEXT NOT NULL,
	content    TEXT NOT NULL,
	created_at INTEGER NOT NULL
) WITHOUT ROWID;
`},
	{7, "tool catalogue", `
CREATE TABLE tool_catalog (
	tool       TEXT PRIMARY KEY, -- the model-visible name
	plugin     TEXT NOT NULL,
	effect     TEXT NOT NULL DEFAULT '', -- as declared; '' counts as write
	title      TEXT NOT NULL DEFAULT '',
	flags      TEXT NOT NULL DEFAULT '', -- comma-separated
	defaults   TEXT NOT NULL DEFAULT '{}', -- the plugin's default modes, JSON
	updated_at INTEGER NOT NULL
) WITHOUT ROWID;
`},
	// INSERT OR REPLACE deletes the row it conflicts with without firing
	// DELETE triggers (recursive_triggers is off), so an explicit id that
	// is taken is refused before the insert.
	{8, "audit refuses replace", `
CREATE TRIGGER audit_append_only_replace BEFORE INSERT ON audit
WHEN NEW.id IS NOT NULL AND EXISTS (SELECT 1 FROM audit WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
`},
	// A plugin name belongs to the folder that first ran under it, so its
	// settings, secrets, KV and data folder (all kept by name) never pass
	// to another program that asks for the name later.
	{9, "plugin name owners", `
CREATE TABLE plugin_names (
	name     TEXT PRIMARY KEY, -- the plugin name, lower case
	folder   TEXT NOT NULL,    -- the owner's folder inside the plugins folder
	bound_at INTEGER NOT NULL
) WITHOUT ROWID;
`},
	// One row per turn: the trace as JSON (store.Trace) and the columns
	// lists filter and sort by. Pruned by age (config trace_days).
	{10, "turn traces", `
CREATE TABLE traces (
	id            TEXT PRIMARY KEY,
	session_id    INTEGER NOT NULL DEFAULT 0, -- sessions.id, 0 when unknown; no foreign key: traces outlive a cleared chat
	channel       TEXT NOT NULL,
	chat_id       TEXT NOT NULL,
	started       INTEGER NOT NULL, -- unix ms
	duration_ms   INTEGER NOT NULL DEFAULT 0,
	outcome       TEXT NOT NULL,
	input_tokens  INTEGER NOT NULL DEFAULT 0,
	output_tokens INTEGER NOT NULL DEFAULT 0,
	cost          REAL, -- NULL when the price is not known
	currency      TEXT NOT NULL DEFAULT '',
	body          TEXT NOT NULL -- JSON
);
CREATE INDEX traces_by_started ON traces(started);
CREATE INDEX traces_by_session ON traces(session_id, started);
CREATE INDEX traces_by_chat ON traces(channel, chat_id, started);
`},
	// A plugin channel's name belongs to the plugin that first registered
	// it, so the sessions (name, *) and the roles people have on it never
	// pass to another plugin that registers the name later.
	{11, "plugin channel owners", `
CREATE TABLE channel_names (
	name     TEXT PRIMARY KEY, -- the channel name, lower case
	plugin   TEXT NOT NULL,    -- the owner's plugin name, lower case
	bound_at INTEGER NOT NULL
) WITHOUT ROWID;
`},
	// Memory entries belong to a scope and a writer (package scope): the
	// same name, relation or document id from two writers or in two
	// scopes is two entries. Existing rows go to global, written by the
	// owner (""). SQLite cannot change a table's key, so the three tables
	// are rebuilt. Entities and documents get a row id that is never
	// reused (AUTOINCREMENT): the shared search index names them by it
	// ("e:<id>", "d:<rid>"), and a document's version tells the index
	// whether what it holds is current.
	{12, "scoped memory", `
ALTER TABLE mem_entities RENAME TO mem_entities_v6;
CREATE TABLE mem_entities (
	id            INTEGER PRIMARY KEY AUTOINCREMENT,
	scope         TEXT NOT NULL DEFAULT 'global',
	writer        TEXT NOT NULL DEFAULT '', -- a plugin id; '' for the owner and Hearth
	name          TEXT NOT NULL,
	type          TEXT NOT NULL DEFAULT '',
	mention_count INTEGER NOT NULL DEFAULT 0,
	deleted       INTEGER NOT NULL DEFAULT 0, -- purged softly
	UNIQUE (scope, writer, name)
);
INSERT INTO mem_entities(scope, writer, name, type, mention_count, deleted)
	SELECT 'global', '', name, type, mention_count, deleted FROM mem_entities_v6 ORDER BY name;
DROP TABLE mem_entities_v6;
CREATE INDEX mem_entities_by_name ON mem_entities(name);

ALTER TABLE mem_relations RENAME TO mem_relations_v6;
CREATE TABLE mem_relations (
	id       INTEGER PRIMARY KEY,
	scope    TEXT NOT NULL DEFAULT 'global',
	writer   TEXT NOT NULL DEFAULT '',
	source   TEXT NOT NULL,
	relation TEXT NOT NULL,
	target   TEXT NOT NULL,
	deleted  INTEGER NOT NULL DEFAULT 0,
	UNIQUE (scope, writer, source, relation, target)
);
INSERT INTO mem_relations(scope, writer, source, relation, target, deleted)
	SELECT 'global', '', source, relation, target, deleted FROM mem_relations_v6 ORDER BY source, relation, target;
DROP TABLE mem_relations_v6;
CREATE INDEX mem_relations_by_source ON mem_relations(source);
CREATE INDEX mem_relations_by_target ON mem_relations(target);

ALTER TABLE mem_docs RENAME TO mem_docs_v6;
CREATE TABLE mem_docs (
	rid        INTEGER PRIMARY KEY AUTOINCREMENT,
	scope      TEXT NOT NULL DEFAULT 'global',
	writer     TEXT NOT NULL DEFAULT '',
	id         TEXT NOT NULL,
	title      TEXT NOT NULL,
	content    TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	version    INTEGER NOT NULL DEFAULT 1, -- one more at each change
	UNIQUE (scope, writer, id)
);
INSERT INTO mem_docs(scope, writer, id, title, content, created_at, updated_at)
	SELECT 'global', '', id, title, content, created_at, created_at FROM mem_docs_v6 ORDER BY id;
DROP TABLE mem_docs_v6;
`},
	{13, "memory marks", `
CREATE TABLE marks_shown (
	channel TEXT NOT NULL,
	chat    TEXT NOT NULL,
	fact    TEXT NOT NULL,
	conv    TEXT NOT NULL, -- the conversation's scope
	seq     INTEGER NOT NULL, -- newer is larger: the oldest go past the bounds
	PRIMARY KEY (fact, channel, chat)
) WITHOUT ROWID;
CREATE INDEX marks_shown_by_chat ON marks_shown(channel, chat, seq);
CREATE INDEX marks_shown_by_seq ON marks_shown(seq);
CREATE TABLE marks_due (
	id      INTEGER PRIMARY KEY AUTOINCREMENT,
	channel TEXT NOT NULL,
	chat    TEXT NOT NULL,
	line    TEXT NOT NULL
);
CREATE INDEX marks_due_by_chat ON marks_due(channel, chat, id);
`},
	// A mark whose text a plugin or a guest wrote (a correction made in
	// a group) taints the turn that shows it, as the entry itself does;
	// a mark goes to a turn of the scope that was shown the fact only
	// ('' for the marks queued before: any).
	{14, "untrusted and scoped memory marks", `
ALTER TABLE marks_due ADD COLUMN untrusted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE marks_due ADD COLUMN conv TEXT NOT NULL DEFAULT '';
`},
	{15, "model usage", `
CREATE TABLE model_usage (
	id                 INTEGER PRIMARY KEY AUTOINCREMENT,
	at                 INTEGER NOT NULL, -- unix ms, when the call started
	day                TEXT NOT NULL,    -- YYYY-MM-DD in the budgets' zone
	session_id         INTEGER NOT NULL DEFAULT 0,
	trace_id           TEXT NOT NULL DEFAULT '',
	source             TEXT NOT NULL,
	model              TEXT NOT NULL,
	plugin             TEXT NOT NULL DEFAULT '', -- the plugin whose input the turn answered
	input_tokens       INTEGER NOT NULL DEFAULT 0,
	cached_tokens      INTEGER NOT NULL DEFAULT 0,
	cache_write_tokens INTEGER NOT NULL DEFAULT 0,
	output_tokens      INTEGER NOT NULL DEFAULT 0,
	cost               REAL, -- NULL when the price is not known
	currency           TEXT NOT NULL DEFAULT ''
);
CREATE INDEX model_usage_by_day ON model_usage(day);
CREATE INDEX model_usage_by_session ON model_usage(session_id);
CREATE TABLE rejected_keys (
	source   TEXT PRIMARY KEY,
	key_hash TEXT NOT NULL, -- SHA-256 of the key: a new key clears the mark
	reason   TEXT NOT NULL,
	at       INTEGER NOT NULL
) WITHOUT ROWID;
`},
}

// ErrFutureSchema means the database was written by a newer Hearth.
var ErrFutureSchema = errors.New("database schema is newer than this Hearth")

func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL DEFAULT (unixepoch()))`); err != nil {
		return err
	}
	var current int
	if err := s.w.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
		return err
	}
	if last := migrations[len(migrations)-1].Version; current > last {
		return fmt.Errorf("%w: schema version %d, this build knows up to %d", ErrFutureSchema, current, last)
	}
	for _, m := range migrations {
		if m.Version <= current {
			continue
		}
		if err := s.apply(ctx, m); err != nil {
			return fmt.Errorf("migration %d (%s): %w", m.Version, m.Name, err)
		}
	}
	return nil
}

func (s *Store) apply(ctx context.Context, m Migration) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// Another process opening the database at the same time may have
	// applied it since migrate looked; the write lock is ours now.
	var done bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = ?)`, m.Version).Scan(&done); err != nil {
		return err
	}
	if done {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, name) VALUES (?, ?)`, m.Version, m.Name); err != nil {
		return err
	}
	return tx.Commit()
}

// SchemaVersion returns the applied schema version.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v)
	return v, err
}

// queryer is what queryAll reads through: the database or a transaction.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// queryAll runs query and returns its rows, each read by scan.
func queryAll[T any](ctx context.Context, q queryer, scan func(*sql.Rows) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
