package host

import (
	"context"
	"fmt"

	"github.com/hearth-agent/hearth/sdk"
)

// Unavailable implements the settings, memory and LLM interfaces with
// methods that fail with an error wrapping sdk.ErrUnavailable (or return
// nothing where the HomeAgent signature has no error). New hands it out
// for services a host does not provide; Service names the service in errors.
type Unavailable struct {
	Service string
}

var (
	_ sdk.KV            = UnavailableKV{}
	_ sdk.SettingsAPI   = Unavailable{}
	_ sdk.MemoryAPI     = Unavailable{}
	_ sdk.TextMemoryAPI = Unavailable{}
	_ sdk.DocMemoryAPI  = Unavailable{}
	_ sdk.LLMAPI        = Unavailable{}
	_ sdk.KnowledgeAPI  = UnavailableKnowledge{}
)

func (u Unavailable) err() error { return fmt.Errorf("%s: %w", u.Service, sdk.ErrUnavailable) }

// Get fails with sdk.ErrUnavailable.
func (u Unavailable) Get(string) (any, error) { return nil, u.err() }

// Set fails with sdk.ErrUnavailable.
func (u Unavailable) Set(string, any) error { return u.err() }

// List fails with sdk.ErrUnavailable.
func (u Unavailable) List(string) ([]string, error) { return nil, u.err() }

// GetCore fails with sdk.ErrUnavailable.
func (u Unavailable) GetCore(string) (any, error) { return nil, u.err() }

// SetCore fails with sdk.ErrUnavailable.
func (u Unavailable) SetCore(string, any) error { return u.err() }

// ListCore fails with sdk.ErrUnavailable.
func (u Unavailable) ListCore(string) ([]string, error) { return nil, u.err() }

// GetPlugin fails with sdk.ErrUnavailable.
func (u Unavailable) GetPlugin(string, string) (any, error) { return nil, u.err() }

// SetPlugin fails with sdk.ErrUnavailable.
func (u Unavailable) SetPlugin(string, string, any) error { return u.err() }

// ListPlugin fails with sdk.ErrUnavailable.
func (u Unavailable) ListPlugin(string, string) ([]string, error) { return nil, u.err() }

// RegisterDef does nothing.
func (u Unavailable) RegisterDef(sdk.ConfigDef) {}

// Defs returns nil.
func (u Unavailable) Defs(string) []*sdk.ConfigDef { return nil }

// Dump returns nil.
func (u Unavailable) Dump() map[string]any { return nil }

// Plugins returns nil.
func (u Unavailable) Plugins() []string { return nil }

// DataDir returns "".
func (u Unavailable) DataDir() string { return "" }

// Recall fails with sdk.ErrUnavailable.
func (u Unavailable) Recall([]string, int) ([]sdk.Entity, []sdk.Relation, error) {
	return nil, nil, u.err()
}

// Commit fails with sdk.ErrUnavailable.
func (u Unavailable) Commit([]sdk.Triple) error { return u.err() }

// Introspect fails with sdk.ErrUnavailable.
func (u Unavailable) Introspect() (map[string]any, error) { return nil, u.err() }

// MergeEntities fails with sdk.ErrUnavailable.
func (u Unavailable) MergeEntities(string, string) (int, error) { return 0, u.err() }

// Purge fails with sdk.ErrUnavailable.
func (u Unavailable) Purge(map[string]string, string) (int, error) { return 0, u.err() }

// Append fails with sdk.ErrUnavailable.
func (u Unavailable) Append(sdk.TextEvent) error { return u.err() }

// Query returns no documents.
func (u Unavailable) Query(string, int) []*sdk.Doc { return nil }

// Insert fails with sdk.ErrUnavailable.
func (u Unavailable) Insert(*sdk.Doc) error { return u.err() }

// Remove does nothing.
func (u Unavailable) Remove(string) {}

// Stats reports the service as unavailable.
func (u Unavailable) Stats() map[string]any {
	return map[string]any{"available": false, "error": u.err().Error()}
}

// UnavailableKnowledge implements sdk.KnowledgeAPI with methods that fail
// with an error wrapping sdk.ErrUnavailable.
type UnavailableKnowledge struct{}

// UnavailableKV is the sdk.KV of a host without storage; its methods fail with
// sdk.ErrUnavailable.
type UnavailableKV struct{}

func (UnavailableKV) err() error { return Unavailable{Service: "kv"}.err() }

// Get fails with sdk.ErrUnavailable.
func (u UnavailableKV) Get(context.Context, string, any) (bool, error) { return false, u.err() }

// Set fails with sdk.ErrUnavailable.
func (u UnavailableKV) Set(context.Context, string, any) error { return u.err() }

// Delete fails with sdk.ErrUnavailable.
func (u UnavailableKV) Delete(context.Context, string) error { return u.err() }

func (UnavailableKnowledge) err() error { return Unavailable{Service: "knowledge"}.err() }

// Search fails with sdk.ErrUnavailable.
func (u UnavailableKnowledge) Search(string, int) ([]*sdk.Knowledge, error) { return nil, u.err() }

// Add fails with sdk.ErrUnavailable.
func (u UnavailableKnowledge) Add(string, string) error { return u.err() }

// List fails with sdk.ErrUnavailable.
func (u UnavailableKnowledge) List() ([]string, error) { return nil, u.err() }

// ListSources returns nil.
func (u Unavailable) ListSources() []string { return nil }

// SetSource fails with sdk.ErrUnavailable.
func (u Unavailable) SetSource(string) error { return u.err() }

// CurrentSource returns "".
func (u Unavailable) CurrentSource() string { return "" }
