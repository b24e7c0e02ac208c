package store

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func openTest(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestOverridesRolesGrants(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if err := s.SetOverride(ctx, "shop__buy", "ask"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetOverride(ctx, "shop__buy", "auto"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetOverride(ctx, "x__y", "sometimes"); err == nil {
		t.Fatal("invalid mode stored")
	}
	o, _ := s.Overrides(ctx)
	if len(o) != 1 || o["shop__buy"] != "auto" {
		t.Fatalf("overrides %v", o)
	}
	_ = s.SetOverride(ctx, "shop__buy", "")
	if o, _ := s.Overrides(ctx); len(o) != 0 {
		t.Fatalf("override not removed: %v", o)
	}
	if err := s.SetRole(ctx, RoleAssignment{Channel: "qq", Group: "g1", User: "u1", Role: "admin"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetRole(ctx, RoleAssignment{Channel: "qq", User: "u1", Role: "boss"}); err == nil {
		t.Fatal("unknown role stored")
	}
	if err := s.SetGrant(ctx, Grant{Channel: "qq", Group: "g1", Role: "admin", Effects: []string{"read", "write"}}); err != nil {
		t.Fatal(err)
	}
	roles, _ := s.Roles(ctx)
	grants, _ := s.Grants(ctx)
	if len(roles) != 1 || roles[0].Role != "admin" || len(grants) != 1 || len(grants[0].Effects) != 2 {
		t.Fatalf("roles %v grants %v", roles, grants)
	}
}

func TestApprovalLifecycle(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	now := time.Now()
	id, err := s.CreateApproval(ctx, Approval{Tool: "shop__buy", Effect: "money", Target: "iPhone", ArgsHash: "h",
		Requester: "owner", Session: "terminal/", Created: now, Expires: now.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DecideApproval(ctx, id, "allowed", "user", now); err != nil {
		t.Fatal(err)
	}
	if err := s.DecideApproval(ctx, id, "denied", "user", now); !errors.Is(err, ErrApprovalDecided) {
		t.Fatalf("second decision: %v", err)
	}
	id2, _ := s.CreateApproval(ctx, Approval{Tool: "t", Effect: "write", ArgsHash: "h", Created: now, Expires: now.Add(time.Second)})
	if err := s.DecideApproval(ctx, id2, "allowed", "user", now.Add(2*time.Second)); !errors.Is(err, ErrApprovalDecided) {
		t.Fatalf("late approval accepted: %v", err)
	}
	if err := s.DecideApproval(ctx, id2, "expired", "policy", now.Add(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	a, _ := s.GetApproval(ctx, id2)
	if a.Status != "expired" {
		t.Fatalf("status %q", a.Status)
	}
}

func TestAuditIsAppendOnly(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	for i, tool := range []string{"a__x", "b__y"} {
		if err := s.AppendAudit(ctx, AuditEntry{At: time.Now(), Tool: tool, Decision: "allow", Outcome: "ok", Duration: time.Duration(i) * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := s.Audit(ctx, AuditQuery{})
	if len(got) != 2 || got[0].Tool != "b__y" {
		t.Fatalf("audit %+v", got)
	}
	if got, _ := s.Audit(ctx, AuditQuery{Tool: "a__x"}); len(got) != 1 {
		t.Fatalf("filtered %+v", got)
	}
	if _, err := s.w.Exec(`UPDATE audit SET decision = 'deny'`); err == nil {
		t.Fatal("audit row updated")
	}
	if _, err := s.w.Exec(`DELETE FROM audit`); err == nil {
		t.Fatal("audit row deleted")
	}
}

// The audit table is append-only against raw SQL too: INSERT OR REPLACE
// deletes the row it conflicts with without firing the DELETE trigger,
// so it is refused on its own.
func TestAuditRefusesReplace(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if err := s.AppendAudit(ctx, AuditEntry{At: time.UnixMilli(1000), Tool: "shop__pay", Decision: "deny", Outcome: "denied"}); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := s.db.QueryRowContext(ctx, `SELECT id FROM audit`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	const cols = `(id, at, session, channel, user_id, role, actor, tool, effect, args_hash, decision, rule, decided_by, duration_ms, outcome)`
	for _, verb := range []string{"INSERT OR REPLACE INTO", "REPLACE INTO", "INSERT INTO"} {
		_, err := s.w.ExecContext(ctx, verb+` audit `+cols+` VALUES (?, 2000, '', '', '', '', '', 'shop__pay', '', '', 'allow', '', '', 0, 'ok')`, id)
		if err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s with the id of an existing row: %v", verb, err)
		}
	}
	for _, q := range []string{`UPDATE audit SET decision = 'allow'`, `DELETE FROM audit`,
		`INSERT INTO audit ` + cols + ` VALUES (1, 2000, '', '', '', '', '', 'shop__pay', '', '', 'allow', '', '', 0, 'ok') ON CONFLICT(id) DO UPDATE SET decision = 'allow'`} {
		if _, err := s.w.ExecContext(ctx, q); err == nil {
			t.Errorf("%s: accepted", q)
		}
	}
	got, err := s.Audit(ctx, AuditQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Decision != "deny" || got[0].Outcome != "denied" || got[0].At.UnixMilli() != 1000 {
		t.Fatalf("audit rows after the attempts: %+v", got)
	}
	// Appending still works.
	if err := s.AppendAudit(ctx, AuditEntry{At: time.UnixMilli(3000), Tool: "shop__pay"}); err != nil {
		t.Fatal(err)
	}
}
