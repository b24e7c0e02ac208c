package store

import (
	"context"
	"errors"
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
	if _, err := s.DB().Exec(`UPDATE audit SET decision = 'deny'`); err == nil {
		t.Fatal("audit row updated")
	}
	if _, err := s.DB().Exec(`DELETE FROM audit`); err == nil {
		t.Fatal("audit row deleted")
	}
}
