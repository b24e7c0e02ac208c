package llm

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// KeyHash identifies an API key without keeping it: a rejected key is
// remembered by its hash, so a new key clears the mark.
func KeyHash(key string) string {
	h := sha256.Sum256([]byte(key))
	return fmt.Sprintf("%x", h[:])
}

// KeyRejectedError is the error of a call through a source whose key the
// provider refused (401 or 403), now or at an earlier call with the same
// key: the source is not called again until its key changes.
type KeyRejectedError struct {
	Source string
	Reason string // "401 unauthorized"
	Err    error  // the provider's answer, when it came with this call
}

func (e *KeyRejectedError) Error() string {
	msg := fmt.Sprintf("the provider of source %q rejected its API key (%s); it is not called again until the key changes", e.Source, e.Reason)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap lets errors.Is(err, ErrAuth) match, and errors.As find the
// provider's *APIError.
func (e *KeyRejectedError) Unwrap() error {
	if e.Err != nil {
		return e.Err
	}
	return ErrAuth
}

// SetFallback sets the fallback chain: the sources tried, in order, when
// the current one fails before any part of its answer came (a 429 or 5xx
// after its retries, a rejected key, a network failure, a timeout, a
// malformed answer). The current source is skipped where it appears.
// Unknown names are an error and change nothing.
func (s *Sources) SetFallback(names []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range names {
		if _, ok := s.meta[n]; !ok {
			return fmt.Errorf("fallback: unknown model source %q", n)
		}
	}
	s.fallback = append([]string(nil), names...)
	return nil
}

// Fallback returns the fallback chain.
func (s *Sources) Fallback() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]string(nil), s.fallback...)
}

// MarkRejected marks source's key, by its KeyHash, as refused by the
// provider for reason, as OnReject reported it before a restart. The
// mark holds only while the source's key has that hash.
func (s *Sources) MarkRejected(source, keyHash, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rejected == nil {
		s.rejected = map[string]rejection{}
	}
	s.rejected[source] = rejection{hash: keyHash, reason: reason}
}

// ClearRejected forgets that source's key was refused (a test of the
// key has passed since).
func (s *Sources) ClearRejected(source string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.rejected, source)
}

// Rejected returns why the provider refused source's current key, and
// whether it did.
func (s *Sources) Rejected(source string) (string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.rejectedLocked(source)
}

func (s *Sources) rejectedLocked(source string) (string, bool) {
	r, ok := s.rejected[source]
	if !ok || r.hash != KeyHash(s.meta[source].APIKey) {
		return "", false
	}
	return r.reason, true
}

type rejection struct{ hash, reason string }

// While a fallback follows, a source that fails is retried at most
// fallbackRetries times (its MaxRetries otherwise), and after failing it
// rests: calls skip it for firstRest, doubling while it keeps failing up
// to maxRest (or for the Retry-After it sent, when longer), and try it
// again after. The last source of the chain that can be called (not
// rejected) is always tried, resting or not. So a provider down for an hour costs each turn nothing, not a
// round of retries before the fallback answers.
//
// A retry a fallback follows waits at most fallbackWait (a longer
// Retry-After falls back at once), and a rest set by a Retry-After lasts
// at most maxRestAfter, so that a provider cannot keep itself out of use
// for longer than that.
const (
	fallbackRetries = 1
	fallbackWait    = time.Second
	firstRest       = 30 * time.Second
	maxRest         = 5 * time.Minute
	maxRestAfter    = time.Hour
)

// cooldown is a failed source's rest: skipped until until, after failing
// fails times in a row for reason.
type cooldown struct {
	until  time.Time
	fails  int
	reason string
}

func (s *Sources) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// resting returns why source is resting and until when, if it is.
func (s *Sources) resting(source string) (cooldown, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c, ok := s.cooling[source]
	return c, ok && s.clock().Before(c.until)
}

// Resting reports whether source is resting after failing (its calls go
// to the fallback chain), why and until when.
func (s *Sources) Resting(source string) (reason string, until time.Time, ok bool) {
	c, ok := s.resting(source)
	return c.reason, c.until, ok
}

// rest starts or lengthens source's rest after err.
func (s *Sources) rest(source string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cooling == nil {
		s.cooling = map[string]cooldown{}
	}
	c := s.cooling[source]
	c.fails++
	d := min(firstRest<<min(c.fails-1, 10), maxRest)
	var apiErr *APIError
	if errors.As(err, &apiErr) && apiErr.RetryAfter > d {
		d = min(apiErr.RetryAfter, maxRestAfter)
	}
	c.until, c.reason = s.clock().Add(d), retryReason(err)
	s.cooling[source] = c
}

// recovered ends source's rest: it answered.
func (s *Sources) recovered(source string) {
	s.mu.RLock()
	_, ok := s.cooling[source]
	s.mu.RUnlock()
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.cooling, source)
}

// Chat sends req through the current source, then through the fallback
// chain while a source fails before any of its answer came. Each
// fallback is announced to onDelta as a Retry naming the next source;
// the answer's Source and Fallback say which source answered and why the
// others did not. A source whose key was rejected is skipped without a
// request, and so is one resting after a failure (see fallbackRetries).
func (s *Sources) Chat(ctx context.Context, req *Request, onDelta func(Delta)) (*Response, error) {
	s.mu.RLock()
	chain := []string{s.current}
	for _, n := range s.fallback {
		if n != s.current {
			chain = append(chain, n)
		}
	}
	s.mu.RUnlock()
	// The last source that can be called (it exists and its key was not
	// rejected) is always tried, resting or not: a rest never leaves a
	// turn without a single request.
	lastTriable := len(chain) - 1
	s.mu.RLock()
	for lastTriable > 0 {
		_, rejected := s.rejectedLocked(chain[lastTriable])
		if s.sources[chain[lastTriable]] != nil && !rejected {
			break
		}
		lastTriable--
	}
	s.mu.RUnlock()
	gate := callGate(ctx)
	var reasons []string
	var err, refused error // refused: the gate's refusal of the current source
	for i, name := range chain {
		last := i >= lastTriable
		s.mu.RLock()
		c, meta := s.sources[name], s.meta[name]
		reason, rejected := s.rejectedLocked(name)
		s.mu.RUnlock()
		rest, resting := s.resting(name)
		var resp *Response
		delivered := false
		switch {
		case c == nil:
			err = ErrNoSource
		case rejected:
			err = &KeyRejectedError{Source: name, Reason: reason}
		case resting && !last:
			err = &restingError{reason: rest.reason, left: rest.until.Sub(s.clock())}
		default:
			var release func()
			if gate != nil {
				if release, err = gate(meta, modelOf(req, meta)); err != nil {
					if i == 0 {
						refused = err
					}
					break
				}
			}
			retries, wait := c.retries(), time.Duration(0)
			if !last {
				retries, wait = min(retries, fallbackRetries), fallbackWait
			}
			resp, err = c.chat(ctx, req, func(d Delta) {
				if d.Retry == nil {
					delivered = true
				}
				if onDelta != nil {
					onDelta(d)
				}
			}, retries, wait)
			switch {
			case err == nil:
				s.recovered(name)
			case !delivered && ctx.Err() == nil && fallsBack(err) && !errors.Is(err, ErrAuth):
				s.rest(name, err)
			}
			if err != nil && resp == nil && release != nil {
				release() // nothing came, nothing to count: the hold goes
			}
		}
		if err == nil {
			resp.Source, resp.Fallback = name, strings.Join(reasons, "; ")
			return resp, nil
		}
		if !rejected && errors.Is(err, ErrAuth) {
			why := retryReason(err)
			s.MarkRejected(name, KeyHash(meta.APIKey), why)
			if s.OnReject != nil {
				s.OnReject(name, KeyHash(meta.APIKey), why)
			}
			err = &KeyRejectedError{Source: name, Reason: why, Err: err}
		}
		if msg := s.secrets.String(err.Error()); msg != err.Error() {
			err = &maskedError{msg: msg, err: err}
		}
		if delivered || ctx.Err() != nil || !fallsBack(err) || i == len(chain)-1 {
			if refused != nil && resp == nil {
				err = refused // the current source was over a budget: that is why
			}
			if resp != nil {
				resp.Source, resp.Fallback = name, strings.Join(reasons, "; ")
			}
			return resp, err
		}
		why := name + ": " + retryReason(err)
		var re *restingError
		var be *BudgetError
		switch {
		case errors.Is(err, ErrAuth):
			why = name + ": key rejected"
		case errors.As(err, &re):
			why = name + ": " + re.Error()
		case errors.As(err, &be):
			why = name + ": " + be.Short()
		}
		reasons = append(reasons, why)
		if onDelta != nil {
			onDelta(Delta{Retry: &Retry{Reason: why, Source: chain[i+1]}})
		}
	}
	return nil, err
}

// CallGate is asked before each source a Sources call tries, with the
// source and the model it would be asked for: an error (a *BudgetError)
// skips that source, and the call falls back to the next one, which is
// asked in turn. The kernel holds each call's budget this way, so a
// fallback source's spending is checked at its own price before it is
// made, not only the current source's.
//
// A source's call that failed with nothing to count (no answer came) is
// given back its hold at once by calling release, so that a failed
// source's estimate does not crowd out its fallback's.
type CallGate func(src Source, model string) (release func(), err error)

// Gated is implemented by providers that ask the CallGate of a call's
// context before each source they try (Sources does).
type Gated interface{ GatesCalls() bool }

// GatesCalls reports that s asks a call's CallGate (Gated).
func (s *Sources) GatesCalls() bool { return true }

type gateKey struct{}

// WithCallGate returns ctx with g asked before each source a
// Sources.Chat under it tries.
func WithCallGate(ctx context.Context, g CallGate) context.Context {
	return context.WithValue(ctx, gateKey{}, g)
}

func callGate(ctx context.Context) CallGate {
	g, _ := ctx.Value(gateKey{}).(CallGate)
	return g
}

// modelOf is the model req is asked of src for.
func modelOf(req *Request, src Source) string {
	if req.Model != "" {
		return req.Model
	}
	return src.Model
}

// restingError is a source skipped while it rests after failing.
type restingError struct {
	reason string
	left   time.Duration
}

func (e *restingError) Error() string {
	return fmt.Sprintf("resting after %s (tried again in %s)", e.reason, shortDuration(e.left))
}

// shortDuration writes d to the second without zero parts: "20s", "1m",
// "1m30s", "1h".
func shortDuration(d time.Duration) string {
	d = max(d.Round(time.Second), time.Second)
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// fallsBack says whether another source may answer after err.
func fallsBack(err error) bool {
	var apiErr *APIError
	var nerr *netError
	switch {
	case errors.Is(err, ErrAuth), errors.Is(err, ErrNoSource):
		return true
	case errors.As(err, new(*restingError)), errors.Is(err, ErrBudget):
		return true
	case errors.As(err, &apiErr):
		return apiErr.retryable() || apiErr.Status == http.StatusNotFound
	case errors.As(err, &nerr), errors.Is(err, ErrTimeout), errors.Is(err, ErrIncomplete), errors.Is(err, ErrMalformed):
		return true
	}
	return false
}
