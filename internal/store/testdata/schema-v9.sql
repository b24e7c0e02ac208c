-- A database as schema version 9 (migrations 1 to 9) left it, dumped with
-- `sqlite3 hearth.db .dump`. Never regenerate it: TestSchemaV9DatabaseOpens
-- proves that the databases of existing users still open and read the same.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL DEFAULT (unixepoch()));
INSERT INTO schema_migrations VALUES(1,'sessions and messages',1796065588);
INSERT INTO schema_migrations VALUES(2,'tool policy: overrides, roles, approvals, audit',1796065588);
INSERT INTO schema_migrations VALUES(3,'plugin state',1796065588);
INSERT INTO schema_migrations VALUES(4,'settings and plugin key-value storage',1796065588);
INSERT INTO schema_migrations VALUES(5,'setting declarations',1796065588);
INSERT INTO schema_migrations VALUES(6,'graph and document memory',1796065588);
INSERT INTO schema_migrations VALUES(7,'tool catalogue',1796065588);
INSERT INTO schema_migrations VALUES(8,'audit refuses replace',1796065588);
INSERT INTO schema_migrations VALUES(9,'plugin name owners',1796065588);
CREATE TABLE sessions (
	id         INTEGER PRIMARY KEY,
	channel    TEXT NOT NULL,
	chat_id    TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	UNIQUE (channel, chat_id)
);
INSERT INTO sessions VALUES(1,'terminal','',1796065588412,1796065588413);
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
INSERT INTO messages VALUES(1,1,'user','现在几点？','','','','',1796065588413);
INSERT INTO messages VALUES(2,1,'assistant','','查时间','[{"id":"c1","type":"function","function":{"name":"time__now","arguments":"{}"}}]','','',1796065588413);
INSERT INTO messages VALUES(3,1,'tool','{"time":"12:00"}','','','c1','',1796065588413);
INSERT INTO messages VALUES(4,1,'assistant','中午十二点。','','','','',1796065588413);
CREATE TABLE policy_overrides (
	tool       TEXT PRIMARY KEY,
	mode       TEXT NOT NULL CHECK (mode IN ('auto', 'ask', 'off')),
	updated_at INTEGER NOT NULL
);
INSERT INTO policy_overrides VALUES('shop__buy','ask',1796065588413);
CREATE TABLE policy_roles (
	channel  TEXT NOT NULL,
	group_id TEXT NOT NULL DEFAULT '',
	user_id  TEXT NOT NULL,
	role     TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'guest')),
	PRIMARY KEY (channel, group_id, user_id)
);
INSERT INTO policy_roles VALUES('qq','g1','alice','admin');
CREATE TABLE policy_grants (
	channel  TEXT NOT NULL DEFAULT '',
	group_id TEXT NOT NULL DEFAULT '',
	role     TEXT NOT NULL,
	effects  TEXT NOT NULL,
	PRIMARY KEY (channel, group_id, role)
);
INSERT INTO policy_grants VALUES('qq','','member','read,write');
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
INSERT INTO approvals VALUES(1,'shop__buy','money','car','h','qq:alice','qq/g1',1767225600000,1767225900000,'allowed','user',1767225660000);
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
INSERT INTO audit VALUES(1,1767225600000,'qq/g1','qq','alice','admin','agent','shop__buy','money','h','allow','ask','user',1500,'ok');
CREATE TABLE plugin_state (
	id        TEXT PRIMARY KEY,
	enabled   INTEGER NOT NULL DEFAULT 1,
	reload_at INTEGER NOT NULL DEFAULT 0
);
INSERT INTO plugin_state VALUES('weather',0,0);
CREATE TABLE settings (
	namespace TEXT NOT NULL, -- "core" or a plugin's name
	key       TEXT NOT NULL,
	value     TEXT NOT NULL, -- JSON
	PRIMARY KEY (namespace, key)
) WITHOUT ROWID;
INSERT INTO settings VALUES('weather','unit','"c"');
CREATE TABLE kv (
	plugin     TEXT NOT NULL,
	key        TEXT NOT NULL,
	value      TEXT NOT NULL, -- JSON
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (plugin, key)
) WITHOUT ROWID;
INSERT INTO kv VALUES('weather','last','{"city":"北京"}',1796065588415);
CREATE TABLE setting_defs (
	namespace TEXT NOT NULL,
	key       TEXT NOT NULL,
	def       TEXT NOT NULL, -- a ConfigDef as JSON
	PRIMARY KEY (namespace, key)
) WITHOUT ROWID;
INSERT INTO setting_defs VALUES('weather','unit','{"key":"unit","type":"string"}');
CREATE TABLE mem_entities (
	name          TEXT PRIMARY KEY,
	type          TEXT NOT NULL DEFAULT '',
	mention_count INTEGER NOT NULL DEFAULT 0,
	deleted       INTEGER NOT NULL DEFAULT 0 -- purged softly
) WITHOUT ROWID;
INSERT INTO mem_entities VALUES('Alice','Person',2,0);
INSERT INTO mem_entities VALUES('Beijing','',1,0);
INSERT INTO mem_entities VALUES('Hearth','',1,1);
CREATE TABLE mem_relations (
	source   TEXT NOT NULL,
	relation TEXT NOT NULL,
	target   TEXT NOT NULL,
	deleted  INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (source, relation, target)
) WITHOUT ROWID;
INSERT INTO mem_relations VALUES('Alice','lives_in','Beijing',0);
INSERT INTO mem_relations VALUES('Alice','works_at','Hearth',1);
CREATE TABLE mem_docs (
	id         TEXT PRIMARY KEY,
	title      TEXT NOT NULL,
	content    TEXT NOT NULL,
	created_at INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO mem_docs VALUES('d1','北京天气','晴，25 度',1796065588415);
CREATE TABLE tool_catalog (
	tool       TEXT PRIMARY KEY, -- the model-visible name
	plugin     TEXT NOT NULL,
	effect     TEXT NOT NULL DEFAULT '', -- as declared; '' counts as write
	title      TEXT NOT NULL DEFAULT '',
	flags      TEXT NOT NULL DEFAULT '', -- comma-separated
	defaults   TEXT NOT NULL DEFAULT '{}', -- the plugin's default modes, JSON
	updated_at INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO tool_catalog VALUES('weather__query','weather','read','Weather','untrusted','{"read":"auto"}',1767225600000);
CREATE TABLE plugin_names (
	name     TEXT PRIMARY KEY, -- the plugin name, lower case
	folder   TEXT NOT NULL,    -- the owner's folder inside the plugins folder
	bound_at INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO plugin_names VALUES('weather','weather-1',1796065588415);
CREATE INDEX messages_by_session ON messages(session_id, id);
CREATE INDEX audit_by_time ON audit(at);
CREATE TRIGGER audit_append_only_update BEFORE UPDATE ON audit BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
CREATE TRIGGER audit_append_only_delete BEFORE DELETE ON audit BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
CREATE INDEX mem_relations_by_target ON mem_relations(target);
CREATE TRIGGER audit_append_only_replace BEFORE INSERT ON audit
WHEN NEW.id IS NOT NULL AND EXISTS (SELECT 1 FROM audit WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
COMMIT;
