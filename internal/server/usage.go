package server

import (
	"math"
	"net/http"
	"time"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/store"
)

// UsageReport is GET /v1/usage's answer: the model calls' totals by one
// key, one row per key and currency ("" for calls without a known
// price), and the budgets with what today and no session has spent of
// them.
type UsageReport struct {
	By     string             `json:"by"`
	Totals []store.UsageTotal `json:"totals"`
	// Budgets are config.json's "budgets"; absent when none is set.
	Budgets *llm.Budgets `json:"budgets,omitempty"`
	// Today is the budget day's spending: tokens, and cost by currency.
	Today UsageSpent `json:"today"`
}

// UsageSpent is what a budget scope has spent.
type UsageSpent struct {
	Day    string             `json:"day"`
	Tokens int64              `json:"tokens"`
	Money  map[string]float64 `json:"money"`
}

func (s *Server) usageRoutes() []route {
	return []route{
		{method: "GET", path: "/v1/usage", out: UsageReport{}, h: s.getUsage,
			summary: "Model usage and cost totals: ?by=day|session|source|model|plugin (default day), ?from= and ?until= (RFC 3339 or YYYY-MM-DD in the budgets' zone; until is exclusive)."},
	}
}

func (s *Server) getUsage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	by := q.Get("by")
	if by == "" {
		by = "day"
	}
	budgets := s.app.Kernel.Budgets()
	loc, _ := budgets.Location()
	bad := map[string]string{}
	if _, ok := store.UsageGroups[by]; !ok {
		bad["by"] = "one of day, session, source, model, plugin"
	}
	var from, until time.Time
	for _, p := range []struct {
		name string
		t    *time.Time
	}{{"from", &from}, {"until", &until}} {
		v := q.Get(p.name)
		if v == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			t, err = time.ParseInLocation(time.DateOnly, v, loc)
		}
		if err != nil {
			bad[p.name] = "an RFC 3339 time or a YYYY-MM-DD date"
		}
		*p.t = t
	}
	if len(bad) > 0 {
		writeFieldErrors(w, "invalid query", bad)
		return
	}
	totals, err := s.app.Store.UsageTotals(r.Context(), by, from, until)
	if err != nil {
		s.log.Error("summing model usage", "err", err)
		writeError(w, http.StatusInternalServerError, "store_error", "could not read the usage")
		return
	}
	rep := UsageReport{By: by, Totals: totals, Budgets: budgets, Today: UsageSpent{Day: budgets.DayOf(time.Now())}}
	if rep.Today.Tokens, rep.Today.Money, err = s.app.Store.UsageSpent(r.Context(), rep.Today.Day, 0); err != nil {
		s.log.Error("summing model usage", "err", err)
		writeError(w, http.StatusInternalServerError, "store_error", "could not read the usage")
		return
	}
	for i := range rep.Totals {
		rep.Totals[i].Cost = roundMoney(rep.Totals[i].Cost)
	}
	for cur, v := range rep.Today.Money {
		rep.Today.Money[cur] = roundMoney(v)
	}
	writeJSON(w, http.StatusOK, rep)
}

// roundMoney rounds a sum of costs to a billionth of the currency unit,
// dropping the float noise of summing (0.0033000000000000004).
func roundMoney(v float64) float64 { return math.Round(v*1e9) / 1e9 }
