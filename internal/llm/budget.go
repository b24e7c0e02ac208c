package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Money is an amount in a currency (an ISO 4217 code).
type Money struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

// Limit caps what model calls may spend in one scope; a zero field sets
// no cap.
type Limit struct {
	// Tokens caps prompt plus completion tokens, as providers report them.
	Tokens int64 `json:"tokens,omitempty"`
	// Money caps the cost of calls priced in its currency. A call whose
	// source has no price, or one in another currency, cannot be held to
	// it and is refused while a money limit is set.
	Money *Money `json:"money,omitempty"`
}

// Budgets are the limits config.json's "budgets" sets. There is no
// scheduler in Hearth yet, so there is no budget per scheduled job.
type Budgets struct {
	Day     *Limit `json:"day,omitempty"`     // all calls of a calendar day
	Session *Limit `json:"session,omitempty"` // all calls of one conversation
	// Zone is the IANA time zone whose midnight starts a day; empty
	// means the host's local time.
	Zone string `json:"zone,omitempty"`
}

// Check reports limits that cannot be enforced: negative amounts, money
// without a currency, an unknown Zone.
func (b *Budgets) Check() error {
	if b == nil {
		return nil
	}
	for _, l := range []struct {
		name string
		l    *Limit
	}{{"day", b.Day}, {"session", b.Session}} {
		if l.l == nil {
			continue
		}
		if l.l.Tokens < 0 {
			return fmt.Errorf("budgets.%s.tokens is negative", l.name)
		}
		if m := l.l.Money; m != nil && (m.Amount < 0 || len(m.Currency) != 3) {
			return fmt.Errorf("budgets.%s.money needs a non-negative amount and a three-letter currency", l.name)
		}
	}
	if _, err := b.Location(); err != nil {
		return err
	}
	return nil
}

// Location is the zone of the budgets' days.
func (b *Budgets) Location() (*time.Location, error) {
	if b == nil || b.Zone == "" {
		return time.Local, nil
	}
	loc, err := time.LoadLocation(b.Zone)
	if err != nil {
		return nil, fmt.Errorf("budgets.zone %q: %w", b.Zone, err)
	}
	return loc, nil
}

// DayOf is the budget day of t, "YYYY-MM-DD" in the budgets' zone.
func (b *Budgets) DayOf(t time.Time) string {
	loc, err := b.Location()
	if err != nil {
		loc = time.Local
	}
	return t.In(loc).Format(time.DateOnly)
}

// Spent is what calls have used in a scope: tokens, and money by
// currency.
type Spent struct {
	Tokens int64
	Money  map[string]float64
}

// Add counts e in s.
func (s *Spent) Add(e CallEstimate) {
	s.Tokens += e.Tokens
	if e.Priced {
		if s.Money == nil {
			s.Money = map[string]float64{}
		}
		s.Money[e.Currency] += e.Cost
	}
}

// CallEstimate is what one call may use at most, as far as Hearth can
// tell before it is made.
type CallEstimate struct {
	Tokens   int64   // prompt plus output tokens
	Cost     float64 // at the input price: no cache hit assumed
	Currency string
	Priced   bool // the source has a price
}

// DefaultOutputEstimate is the output a call is assumed to take when its
// source sets no max_tokens.
const DefaultOutputEstimate = 1024

// promptBytesPerToken is the estimate's ratio of request bytes to prompt
// tokens. Tokenizers make about four bytes of English, and one Chinese
// character of three bytes, into one token; JSON framing is counted as if
// it were text. Three bytes a token errs high.
const promptBytesPerToken = 3

// EstimateCall estimates req through src, made at t: prompt tokens from
// the size of its messages and tools as JSON (one token per three bytes,
// rounded up), output tokens from src.MaxTokens (DefaultOutputEstimate
// when unset), priced at src's price for model without any cache hit.
func EstimateCall(req *Request, src Source, model string, t time.Time) CallEstimate {
	n := 0
	if b, err := json.Marshal(req.Messages); err == nil {
		n += len(b)
	}
	if len(req.Tools) > 0 {
		if b, err := json.Marshal(req.Tools); err == nil {
			n += len(b)
		}
	}
	prompt := (n + promptBytesPerToken - 1) / promptBytesPerToken
	out := src.MaxTokens
	if out <= 0 {
		out = DefaultOutputEstimate
	}
	e := CallEstimate{Tokens: int64(prompt + out)}
	if p, ok := PriceOf(src, model); ok {
		e.Priced, e.Currency = true, p.CurrencyCode()
		e.Cost = p.CostAt(Usage{PromptTokens: prompt, CompletionTokens: out}, t)
	}
	return e
}

// ErrBudget is wrapped by the error of a call refused because it would
// go over a budget.
var ErrBudget = errors.New("over budget")

// BudgetError says which budget a call would go over. Its message is
// written for the user.
type BudgetError struct {
	Scope    string // "day" or "session"
	Tokens   bool   // the token limit; else the money limit
	Limit    float64
	Spent    float64 // before the call
	Estimate float64 // the call's estimate
	Currency string  // of a money limit
	// Unpriced says the call has no price in Currency, so a money limit
	// cannot be held.
	Unpriced bool
	// Source is the model source the call was to go through, when known.
	Source string
}

func (e *BudgetError) Error() string {
	where := fmt.Sprintf(`raise "budgets"."%s" in config.json`, e.Scope)
	switch e.Scope {
	case "day":
		where += " or wait for the next day"
	case "session":
		where += " or start a new session"
	}
	if e.Unpriced {
		src := "this source"
		if e.Source != "" {
			src = fmt.Sprintf("source %q", e.Source)
		}
		return fmt.Sprintf("model call stopped: the %s budget is set in %s and %s has no price in %s, so the call could spend it unseen; set the source's \"price\" in %s or lift the budget",
			e.Scope, e.Currency, src, e.Currency, e.Currency)
	}
	if e.Tokens {
		return fmt.Sprintf("model call stopped: the %s budget of %.0f tokens would be exceeded (%.0f used, this call needs up to %.0f); %s",
			e.Scope, e.Limit, e.Spent, e.Estimate, where)
	}
	return fmt.Sprintf("model call stopped: the %s budget of %s %s would be exceeded (%s %s spent, this call may cost up to %s %s); %s",
		e.Scope, money(e.Limit), e.Currency, money(e.Spent), e.Currency, money(e.Estimate), e.Currency, where)
}

// money writes an amount for a message: at most four significant digits
// below one, two decimals above, no float noise.
func money(v float64) string {
	if v != 0 && v < 1 && v > -1 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// Short says which budget, for a fallback notice: "over the day
// budget", "no price in CNY for the day budget".
func (e *BudgetError) Short() string {
	if e.Unpriced {
		return fmt.Sprintf("no price in %s for the %s budget", e.Currency, e.Scope)
	}
	return fmt.Sprintf("over the %s budget", e.Scope)
}

// Unwrap lets errors.Is(err, ErrBudget) match.
func (e *BudgetError) Unwrap() error { return ErrBudget }

// Allow returns nil when a call estimated at est fits in l after spent,
// else a *BudgetError naming scope. A nil Limit allows everything.
// Spending exactly the limit is allowed.
func (l *Limit) Allow(scope string, spent Spent, est CallEstimate) error {
	if l == nil {
		return nil
	}
	if l.Tokens > 0 && spent.Tokens+est.Tokens > l.Tokens {
		return &BudgetError{Scope: scope, Tokens: true, Limit: float64(l.Tokens), Spent: float64(spent.Tokens), Estimate: float64(est.Tokens)}
	}
	if m := l.Money; m != nil {
		cur := strings.ToUpper(m.Currency)
		if !est.Priced || est.Currency != cur {
			return &BudgetError{Scope: scope, Limit: m.Amount, Currency: cur, Unpriced: true}
		}
		if have := spent.Money[cur]; have+est.Cost > m.Amount {
			return &BudgetError{Scope: scope, Limit: m.Amount, Spent: have, Estimate: est.Cost, Currency: cur}
		}
	}
	return nil
}
