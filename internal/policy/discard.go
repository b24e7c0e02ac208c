package policy

import (
	"context"
	"time"

	"github.com/hearth-agent/hearth/internal/store"
)

// DiscardStore keeps nothing: no overrides, roles or grants, and records
// are dropped. It is for benchmarks and for embedders that keep no
// records; a real host uses *store.Store.
type DiscardStore struct{}

var _ Store = DiscardStore{}

// Overrides returns none.
func (DiscardStore) Overrides(context.Context) (map[string]string, error) { return nil, nil }

// SetOverride drops the mode.
func (DiscardStore) SetOverride(context.Context, string, string) error { return nil }

// Roles returns none.
func (DiscardStore) Roles(context.Context) ([]store.RoleAssignment, error) { return nil, nil }

// Grants returns none.
func (DiscardStore) Grants(context.Context) ([]store.Grant, error) { return nil, nil }

// CreateApproval drops the request.
func (DiscardStore) CreateApproval(context.Context, store.Approval) (int64, error) { return 0, nil }

// DecideApproval drops the answer.
func (DiscardStore) DecideApproval(context.Context, int64, string, string, time.Time) error {
	return nil
}

// AppendAudit drops the entry.
func (DiscardStore) AppendAudit(context.Context, store.AuditEntry) error { return nil }
