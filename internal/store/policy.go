package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Overrides returns the user's per-tool modes.
func (s *Store) Overrides(ctx context.Context) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT tool, mode FROM policy_overrides`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var tool, mode string
		if err := rows.Scan(&tool, &mode); err != nil {
			return nil, err
		}
		out[tool] = mode
	}
	return out, rows.Err()
}

// SetOverride sets the user's mode for tool; an empty mode removes it.
func (s *Store) SetOverride(ctx context.Context, tool, mode string) error {
	if mode == "" {
		_, err := s.w.ExecContext(ctx, `DELETE FROM policy_overrides WHERE tool = ?`, tool)
		return err
	}
	_, err := s.w.ExecContext(ctx, `INSERT INTO policy_overrides(tool, mode, updated_at) VALUES (?, ?, ?)
		ON CONFLICT(tool) DO UPDATE SET mode = excluded.mode, updated_at = excluded.updated_at`,
		tool, mode, time.Now().UnixMilli())
	if err != nil {
		return fmt.Errorf("saving the mode of %s: %w", tool, err)
	}
	return nil
}

// RoleAssignment gives a user a role in a channel (and group, or every
// group when Group is empty).
type RoleAssignment struct {
	Channel, Group, User, Role string
}

// Roles returns every role assignment.
func (s *Store) Roles(ctx context.Context) ([]RoleAssignment, error) {
	return queryAll(ctx, s.db, func(rows *sql.Rows) (r RoleAssignment, err error) {
		return r, rows.Scan(&r.Channel, &r.Group, &r.User, &r.Role)
	}, `SELECT channel, group_id, user_id, role FROM policy_roles ORDER BY channel, group_id, user_id`)
}

// SetRole assigns a role; an empty role removes the assignment.
func (s *Store) SetRole(ctx context.Context, r RoleAssignment) error {
	if r.Role == "" {
		_, err := s.w.ExecContext(ctx, `DELETE FROM policy_roles WHERE channel = ? AND group_id = ? AND user_id = ?`, r.Channel, r.Group, r.User)
		return err
	}
	_, err := s.w.ExecContext(ctx, `INSERT INTO policy_roles(channel, group_id, user_id, role) VALUES (?, ?, ?, ?)
		ON CONFLICT(channel, group_id, user_id) DO UPDATE SET role = excluded.role`, r.Channel, r.Group, r.User, r.Role)
	return err
}

// Grant lets a role trigger effects in a channel and group ("" for all).
type Grant struct {
	Channel, Group, Role string
	Effects              []string
}

// Grants returns every grant.
func (s *Store) Grants(ctx context.Context) ([]Grant, error) {
	return queryAll(ctx, s.db, func(rows *sql.Rows) (g Grant, err error) {
		var effects string
		err = rows.Scan(&g.Channel, &g.Group, &g.Role, &effects)
		if effects != "" {
			g.Effects = strings.Split(effects, ",")
		}
		return g, err
	}, `SELECT channel, group_id, role, effects FROM policy_grants ORDER BY channel, group_id, role`)
}

// SetGrant stores a grant; no effects removes it.
func (s *Store) SetGrant(ctx context.Context, g Grant) error {
	if len(g.Effects) == 0 {
		_, err := s.w.ExecContext(ctx, `DELETE FROM policy_grants WHERE channel = ? AND group_id = ? AND role = ?`, g.Channel, g.Group, g.Role)
		return err
	}
	_, err := s.w.ExecContext(ctx, `INSERT INTO policy_grants(channel, group_id, role, effects) VALUES (?, ?, ?, ?)
		ON CONFLICT(channel, group_id, role) DO UPDATE SET effects = excluded.effects`,
		g.Channel, g.Group, g.Role, strings.Join(g.Effects, ","))
	return err
}

// Approval is a stored approval request.
type Approval struct {
	ID        int64
	Tool      string
	Effect    string
	Target    string
	ArgsHash  string
	Requester string
	Session   string
	Created   time.Time
	Expires   time.Time
	Status    string // pending, allowed, denied, expired
	DecidedBy string
}

// CreateApproval stores a pending request and returns its id.
func (s *Store) CreateApproval(ctx context.Context, a Approval) (int64, error) {
	var id int64
	err := s.w.QueryRowContext(ctx, `INSERT INTO approvals(tool, effect, target, args_hash, requester, session, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		a.Tool, a.Effect, a.Target, a.ArgsHash, a.Requester, a.Session, a.Created.UnixMilli(), a.Expires.UnixMilli()).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("storing the approval request: %w", err)
	}
	return id, nil
}

// ErrApprovalDecided means the request was already decided or expired.
var ErrApprovalDecided = errors.New("approval request already decided")

// DecideApproval records the answer to a pending request. A request past
// its expiry can only become expired.
func (s *Store) DecideApproval(ctx context.Context, id int64, status, by string, at time.Time) error {
	q := `UPDATE approvals SET status = ?, decided_by = ?, decided_at = ? WHERE id = ? AND status = 'pending'`
	args := []any{status, by, at.UnixMilli(), id}
	if status != "expired" {
		q += ` AND expires_at > ?`
		args = append(args, at.UnixMilli())
	}
	res, err := s.w.ExecContext(ctx, q, args...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrApprovalDecided
	}
	return nil
}

// GetApproval returns one request.
func (s *Store) GetApproval(ctx context.Context, id int64) (Approval, error) {
	var a Approval
	var created, expires int64
	err := s.db.QueryRowContext(ctx, `SELECT id, tool, effect, target, args_hash, requester, session, created_at, expires_at, status, decided_by
		FROM approvals WHERE id = ?`, id).Scan(&a.ID, &a.Tool, &a.Effect, &a.Target, &a.ArgsHash, &a.Requester, &a.Session,
		&created, &expires, &a.Status, &a.DecidedBy)
	if errors.Is(err, sql.ErrNoRows) {
		return a, fmt.Errorf("no approval request %d", id)
	}
	a.Created, a.Expires = time.UnixMilli(created), time.UnixMilli(expires)
	return a, err
}

// AuditEntry is one tool call in the audit log.
type AuditEntry struct {
	At        time.Time
	Session   string
	Channel   string
	User      string
	Role      string
	Actor     string
	Tool      string
	Effect    string
	ArgsHash  string
	Decision  string // allow or deny
	Rule      string
	DecidedBy string // policy, user, hook:<plugin>, stage:<plugin>
	Duration  time.Duration
	Outcome   string // ok, error, denied, not-run
}

// AppendAudit adds an entry; the table refuses updates and deletes.
func (s *Store) AppendAudit(ctx context.Context, e AuditEntry) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO audit(at, session, channel, user_id, role, actor, tool, effect, args_hash,
		decision, rule, decided_by, duration_ms, outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.At.UnixMilli(), e.Session, e.Channel, e.User, e.Role, e.Actor, e.Tool, e.Effect, e.ArgsHash,
		e.Decision, e.Rule, e.DecidedBy, e.Duration.Milliseconds(), e.Outcome)
	return err
}

// AuditQuery filters the audit log; zero fields match everything.
type AuditQuery struct {
	Tool  string
	Since time.Time
	Limit int // default 50
}

// Audit returns matching entries, newest first.
func (s *Store) Audit(ctx context.Context, q AuditQuery) ([]AuditEntry, error) {
	if q.Limit <= 0 {
		q.Limit = 50
	}
	rows, err := s.db.QueryContext(ctx, `SELECT at, session, channel, user_id, role, actor, tool, effect, args_hash,
		decision, rule, decided_by, duration_ms, outcome FROM audit
		WHERE (? = '' OR tool = ?) AND at >= ? ORDER BY id DESC LIMIT ?`,
		q.Tool, q.Tool, q.Since.UnixMilli(), q.Limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		var e AuditEntry
		var at, ms int64
		if err := rows.Scan(&at, &e.Session, &e.Channel, &e.User, &e.Role, &e.Actor, &e.Tool, &e.Effect, &e.ArgsHash,
			&e.Decision, &e.Rule, &e.DecidedBy, &ms, &e.Outcome); err != nil {
			return nil, err
		}
		e.At, e.Duration = time.UnixMilli(at), time.Duration(ms)*time.Millisecond
		out = append(out, e)
	}
	return out, rows.Err()
}
