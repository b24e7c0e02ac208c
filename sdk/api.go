package sdk

import (
	"context"
	"errors"
)

// ErrUnavailable is returned by services the running host does not provide
// yet. Errors from such a service wrap it, so callers test with errors.Is.
var ErrUnavailable = errors.New("service not available in this Hearth build")

// ErrNotFound is returned (wrapped) by SettingsAPI getters for a key that
// is neither set nor declared with a default.
var ErrNotFound = errors.New("setting not found")

// KV is a plugin's private key-value storage (the PKU harness
// ToolContext's kv): values are kept as JSON, survive restarts, and no
// other plugin can read them. A tool gets it in ToolContext.KV; anywhere
// else, PluginSDK.KV.
type KV interface {
	// Get decodes the value of key into v (a pointer); false if not set.
	Get(ctx context.Context, key string, v any) (bool, error)
	// Set stores v, which must encode as JSON.
	Set(ctx context.Context, key string, v any) error
	// Delete removes key; deleting a key that is not set is no error.
	Delete(ctx context.Context, key string) error
}

// SettingsAPI reads and writes configuration. Each plugin has its own
// namespace; core settings live in their own.
type SettingsAPI interface {
	Get(key string) (any, error)          // this plugin's value
	Set(key string, value any) error      // write this plugin's value
	List(prefix string) ([]string, error) // this plugin's keys with prefix
	GetCore(key string) (any, error)      // a core value
	SetCore(key string, value any) error
	ListCore(prefix string) ([]string, error)
	GetPlugin(plugin, key string) (any, error) // another plugin's value; secrets masked
	// SetPlugin writes another plugin's value. Hearth refuses another
	// plugin's secrets and records every such write in its audit log; a
	// child plugin needs the settings.plugins.write group.
	SetPlugin(plugin, key string, value any) error
	ListPlugin(plugin, prefix string) ([]string, error)
	RegisterDef(def ConfigDef)       // declare a setting for the UI
	Defs(prefix string) []*ConfigDef // declared settings with prefix
	Dump() map[string]any            // all values
	Plugins() []string               // all plugin namespaces
	// DataDir returns the plugin's own data directory,
	// <data dir>/plugin_data/<plugin>, creating it if needed.
	DataDir() string
}

// ConfigDef declares one setting so user interfaces can show and edit it.
type ConfigDef struct {
	Key         string   `json:"key"`
	Default     any      `json:"default,omitempty"`
	Type        string   `json:"type"` // string, number, boolean; HomeAgent's int, float, bool, select, password, text (see Check)
	DisplayName string   `json:"display_name"`
	Description string   `json:"description,omitempty"`
	Category    string   `json:"category,omitempty"`
	Options     []string `json:"options,omitempty"`
	Min         float64  `json:"min,omitzero"`
	Max         float64  `json:"max,omitzero"`
	Step        float64  `json:"step,omitzero"`
	Required    bool     `json:"required,omitzero"`
	Secret      bool     `json:"secret,omitzero"` // masked everywhere it is shown
}

// MemoryAPI is the graph memory: entities and the relations between them.
type MemoryAPI interface {
	// Recall finds the entities whose names match one of the query words
	// (whole words; in Chinese, Japanese and Korean, characters and
	// pairs of characters: "明" finds "小明"), the few that match each
	// best, walks their relations depth steps both ways (at most 3), and
	// returns the entities reached, most mentioned first, and the
	// relations among them. The walk is bounded, the same in a small
	// graph as in a large one: it follows the latest relations of each
	// entity and stops at 64 entities. It sees the entries of the
	// conversation the call serves and the global ones, written by this
	// plugin (by any plugin with the capability "memory.shared"); one
	// name can so come once per scope.
	Recall(query []string, depth int) ([]Entity, []Relation, error)
	// Commit records triples: both entities are mentioned once more
	// (created if new) and the relation is added.
	Commit(triples []Triple) error
	// Introspect returns counts: entities, relations, and those purged
	// softly.
	Introspect() (map[string]any, error)
	// MergeEntities folds source into target (two names of one thing)
	// and returns how many relations moved.
	MergeEntities(source, target string) (int, error)
	// Purge removes the entities matching criteria ("name", "type", or
	// "relation": entities in such a relation) with their relations:
	// mode "soft" hides them from Recall until a Commit brings them
	// back, "hard" deletes them. It returns how many entities.
	Purge(criteria map[string]string, mode string) (int, error)
}

// Entity is a node of the graph memory.
type Entity struct {
	Name         string `json:"name"`
	Type         string `json:"type"`
	MentionCount int    `json:"mention_count"`
}

// Relation is an edge of the graph memory.
type Relation struct {
	SourceName   string `json:"source_name"`
	TargetName   string `json:"target_name"`
	RelationType string `json:"relation_type"`
}

// Triple is a fact to commit to the graph memory.
type Triple struct {
	Subject  string `json:"subject"`
	Relation string `json:"relation"`
	Object   string `json:"object"`
}

// TextMemoryAPI is the chronological log of conversation events.
type TextMemoryAPI interface {
	// Append adds evt to the day's log.
	Append(evt TextEvent) error
}

// TextEvent is one entry of the text memory.
type TextEvent struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	Timestamp int64  `json:"timestamp"`
	Channel   string `json:"channel,omitempty"`
}

// DocMemoryAPI is the short-lived document memory.
type DocMemoryAPI interface {
	// Query returns the topK documents best matching text, with scores.
	Query(text string, topK int) []*Doc
	// Insert stores doc, replacing one with its ID; an empty ID is given
	// one.
	Insert(doc *Doc) error
	// Remove deletes a document; an unknown id is ignored.
	Remove(id string)
	// Stats returns how many documents there are.
	Stats() map[string]any
}

// Doc is one document of the document memory.
type Doc struct {
	ID      string  `json:"id"`
	Title   string  `json:"title"`
	Content string  `json:"content"`
	Score   float64 `json:"score,omitzero"`
}

// KnowledgeAPI is the knowledge base.
type KnowledgeAPI interface {
	// Search returns the topK entries best matching query.
	Search(query string, topK int) ([]*Knowledge, error)
	// Add writes (or replaces) the entry name.
	Add(name, content string) error
	// List returns the entries' names, sorted.
	List() ([]string, error)
}

// Knowledge is one knowledge base entry.
type Knowledge struct {
	Name    string `json:"name"`
	Content string `json:"content"`
}

// LLMAPI manages the model sources.
type LLMAPI interface {
	// ListSources returns the names of the configured model sources.
	ListSources() []string
	// SetSource makes name the current model source.
	SetSource(name string) error
	// CurrentSource returns the name of the source in use.
	CurrentSource() string
}
