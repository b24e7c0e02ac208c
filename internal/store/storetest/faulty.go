// Package storetest has a store that fails on cue, for tests that prove
// a failed write loses nothing and is reported clearly. Real SQLite stays
// underneath: only the cued writes fail, and the others are made.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/store"
)

// ErrInjected is the failure of a cued write when the cue gives none.
var ErrInjected = errors.New("injected store failure")

// AnyWrite cues every write together, whatever its operation: "fail the
// Nth write".
const AnyWrite = "*"

// Faulty is a *store.Store whose writes fail on cue; reads and uncued
// writes go to the database. Its writes are the store's methods that
// change something, named by their method name (AppendMessages,
// CreateApproval, SetSetting...). It is safe for concurrent use.
type Faulty struct {
	*store.Store

	mu    sync.Mutex
	cues  map[string]*cue // by operation, or AnyWrite
	calls map[string]int  // writes so far, by operation and AnyWrite
}

type cue struct {
	pass int   // calls still let through
	err  error // then every call fails with this
}

// Open returns a Faulty over a new database in a temporary directory,
// closed when the test ends.
func Open(t testing.TB) *Faulty {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return Wrap(st)
}

// Wrap returns st with no cue set.
func Wrap(st *store.Store) *Faulty {
	return &Faulty{Store: st, cues: map[string]*cue{}, calls: map[string]int{}}
}

// FailAfter lets the next n writes of op through, then fails every later
// one with err (ErrInjected if nil), wrapped with the operation's name.
// op is a write's method name or AnyWrite. FailAfter(op, 0, err) fails
// the next one.
func (f *Faulty) FailAfter(op string, n int, err error) {
	if err == nil {
		err = ErrInjected
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cues[op] = &cue{pass: n, err: err}
}

// Heal removes every cue: writes succeed again.
func (f *Faulty) Heal() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.cues)
}

// Calls returns how many writes of op (or AnyWrite) were asked for,
// failed ones included.
func (f *Faulty) Calls(op string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[op]
}

// fault counts a write of op and returns its cued failure, if any.
func (f *Faulty) fault(op string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[op]++
	f.calls[AnyWrite]++
	for _, name := range []string{op, AnyWrite} {
		c := f.cues[name]
		if c == nil {
			continue
		}
		if c.pass > 0 {
			c.pass--
			continue
		}
		return fmt.Errorf("%s: %w", op, c.err)
	}
	return nil
}

// Session implements kernel.History; it creates the session, a write.
func (f *Faulty) Session(ctx context.Context, channel, chatID string) (store.Session, error) {
	if err := f.fault("Session"); err != nil {
		return store.Session{}, err
	}
	return f.Store.Session(ctx, channel, chatID)
}

// AppendMessages is store.Store.AppendMessages, failing on cue.
func (f *Faulty) AppendMessages(ctx context.Context, sessionID int64, msgs []store.Message) error {
	return f.do("AppendMessages", func() error { return f.Store.AppendMessages(ctx, sessionID, msgs) })
}

// ClearSession is store.Store.ClearSession, failing on cue.
func (f *Faulty) ClearSession(ctx context.Context, sessionID int64) error {
	return f.do("ClearSession", func() error { return f.Store.ClearSession(ctx, sessionID) })
}

// SetSetting is store.Store.SetSetting, failing on cue.
func (f *Faulty) SetSetting(ctx context.Context, namespace, key string, value json.RawMessage) error {
	return f.do("SetSetting", func() error { return f.Store.SetSetting(ctx, namespace, key, value) })
}

// ApplySettings is store.Store.ApplySettings, failing on cue.
func (f *Faulty) ApplySettings(ctx context.Context, namespace string, set map[string]json.RawMessage, remove []string) error {
	return f.do("ApplySettings", func() error { return f.Store.ApplySettings(ctx, namespace, set, remove) })
}

// SetSettingDef is store.Store.SetSettingDef, failing on cue.
func (f *Faulty) SetSettingDef(ctx context.Context, namespace, key string, def json.RawMessage) error {
	return f.do("SetSettingDef", func() error { return f.Store.SetSettingDef(ctx, namespace, key, def) })
}

// KVSet is store.Store.KVSet, failing on cue.
func (f *Faulty) KVSet(ctx context.Context, plugin, key string, value json.RawMessage) error {
	return f.do("KVSet", func() error { return f.Store.KVSet(ctx, plugin, key, value) })
}

// KVDelete is store.Store.KVDelete, failing on cue.
func (f *Faulty) KVDelete(ctx context.Context, plugin, key string) error {
	return f.do("KVDelete", func() error { return f.Store.KVDelete(ctx, plugin, key) })
}

// SetOverride is store.Store.SetOverride, failing on cue.
func (f *Faulty) SetOverride(ctx context.Context, tool, mode string) error {
	return f.do("SetOverride", func() error { return f.Store.SetOverride(ctx, tool, mode) })
}

// SetRole is store.Store.SetRole, failing on cue.
func (f *Faulty) SetRole(ctx context.Context, r store.RoleAssignment) error {
	return f.do("SetRole", func() error { return f.Store.SetRole(ctx, r) })
}

// SetGrant is store.Store.SetGrant, failing on cue.
func (f *Faulty) SetGrant(ctx context.Context, g store.Grant) error {
	return f.do("SetGrant", func() error { return f.Store.SetGrant(ctx, g) })
}

// CreateApproval is store.Store.CreateApproval, failing on cue.
func (f *Faulty) CreateApproval(ctx context.Context, a store.Approval) (int64, error) {
	if err := f.fault("CreateApproval"); err != nil {
		return 0, err
	}
	return f.Store.CreateApproval(ctx, a)
}

// DecideApproval is store.Store.DecideApproval, failing on cue.
func (f *Faulty) DecideApproval(ctx context.Context, id int64, status, by string, at time.Time) error {
	return f.do("DecideApproval", func() error { return f.Store.DecideApproval(ctx, id, status, by, at) })
}

// AppendAudit is store.Store.AppendAudit, failing on cue.
func (f *Faulty) AppendAudit(ctx context.Context, e store.AuditEntry) error {
	return f.do("AppendAudit", func() error { return f.Store.AppendAudit(ctx, e) })
}

// SaveCatalogEntries is store.Store.SaveCatalogEntries, failing on cue.
func (f *Faulty) SaveCatalogEntries(ctx context.Context, es []store.CatalogEntry) error {
	return f.do("SaveCatalogEntries", func() error { return f.Store.SaveCatalogEntries(ctx, es) })
}

// SetPluginEnabled is store.Store.SetPluginEnabled, failing on cue.
func (f *Faulty) SetPluginEnabled(ctx context.Context, id string, enabled bool) error {
	return f.do("SetPluginEnabled", func() error { return f.Store.SetPluginEnabled(ctx, id, enabled) })
}

// RequestPluginReload is store.Store.RequestPluginReload, failing on cue.
func (f *Faulty) RequestPluginReload(ctx context.Context, id string) error {
	return f.do("RequestPluginReload", func() error { return f.Store.RequestPluginReload(ctx, id) })
}

// BindPluginName is store.Store.BindPluginName, failing on cue.
func (f *Faulty) BindPluginName(ctx context.Context, name, folder string) (string, error) {
	if err := f.fault("BindPluginName"); err != nil {
		return "", err
	}
	return f.Store.BindPluginName(ctx, name, folder)
}

// ForgetPlugin is store.Store.ForgetPlugin, failing on cue.
func (f *Faulty) ForgetPlugin(ctx context.Context, name string) (*store.ForgottenPlugin, error) {
	if err := f.fault("ForgetPlugin"); err != nil {
		return nil, err
	}
	return f.Store.ForgetPlugin(ctx, name)
}

// CommitTriples is store.Store.CommitTriples, failing on cue.
func (f *Faulty) CommitTriples(ctx context.Context, k store.Key, triples []store.Triple) (store.Change, error) {
	if err := f.fault("CommitTriples"); err != nil {
		return store.Change{}, err
	}
	return f.Store.CommitTriples(ctx, k, triples)
}

// SetEntityType is store.Store.SetEntityType, failing on cue.
func (f *Faulty) SetEntityType(ctx context.Context, k store.Key, name, typ string) error {
	return f.do("SetEntityType", func() error { return f.Store.SetEntityType(ctx, k, name, typ) })
}

// MergeEntities is store.Store.MergeEntities, failing on cue.
func (f *Faulty) MergeEntities(ctx context.Context, k store.Key, source, target string) (int, store.Change, error) {
	if err := f.fault("MergeEntities"); err != nil {
		return 0, store.Change{}, err
	}
	return f.Store.MergeEntities(ctx, k, source, target)
}

// PurgeEntities is store.Store.PurgeEntities, failing on cue.
func (f *Faulty) PurgeEntities(ctx context.Context, v store.Visible, filter store.EntityFilter, hard bool) ([]store.Entity, error) {
	if err := f.fault("PurgeEntities"); err != nil {
		return nil, err
	}
	return f.Store.PurgeEntities(ctx, v, filter, hard)
}

// DeleteRelation is store.Store.DeleteRelation, failing on cue.
func (f *Faulty) DeleteRelation(ctx context.Context, r store.Relation) (bool, error) {
	if err := f.fault("DeleteRelation"); err != nil {
		return false, err
	}
	return f.Store.DeleteRelation(ctx, r)
}

// SaveDoc is store.Store.SaveDoc, failing on cue.
func (f *Faulty) SaveDoc(ctx context.Context, doc store.Doc) (store.Doc, error) {
	if err := f.fault("SaveDoc"); err != nil {
		return store.Doc{}, err
	}
	return f.Store.SaveDoc(ctx, doc)
}

// DeleteDocs is store.Store.DeleteDocs, failing on cue.
func (f *Faulty) DeleteDocs(ctx context.Context, v store.Visible, id string) ([]int64, error) {
	if err := f.fault("DeleteDocs"); err != nil {
		return nil, err
	}
	return f.Store.DeleteDocs(ctx, v, id)
}

// SaveTrace is store.Store.SaveTrace, failing on cue.
func (f *Faulty) SaveTrace(ctx context.Context, tr *store.Trace) error {
	return f.do("SaveTrace", func() error { return f.Store.SaveTrace(ctx, tr) })
}

// PruneTraces is store.Store.PruneTraces, failing on cue.
func (f *Faulty) PruneTraces(ctx context.Context, olderThan time.Time) (int, error) {
	if err := f.fault("PruneTraces"); err != nil {
		return 0, err
	}
	return f.Store.PruneTraces(ctx, olderThan)
}

// do runs write unless op is cued to fail.
func (f *Faulty) do(op string, write func() error) error {
	if err := f.fault(op); err != nil {
		return err
	}
	return write()
}
