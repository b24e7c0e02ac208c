package wire

import "time"

// The reading role.
//
// One goroutine at a time reads the connection: the reader. It delivers
// answers and cancellations as it reads them, and runs each request
// itself, at once, so a quick request is read, run and answered on one
// goroutine. Handing every request to a goroutine of its own wakes a
// second thread per request, which on a small machine took the child
// plugin's p50 from about 2× the raw pipe to 3.5–6× and halved its
// throughput with 16 callers (docs/benchmarks.md).
//
// So that a request does not hold up reading, the reader lends the role
// while it runs one, and the role is passed to a new goroutine when
// anything calls the peer while a request runs on the reader (Call: the
// answer must be read, and the caller may be that request; telling it
// from another goroutine would cost more than the rare extra goroutine)
// or the watchdog sees the request still running one leadCheck later. The goroutine that ran the
// request then ends. The invariants:
//
//  1. At most one goroutine reads. The reader reads only between
//     requests; while it runs request n, busy holds n's token, and
//     whoever swaps that token for 0 first holds the role: the reader
//     when n ends (it reads on), or pass, which starts a new reader (and
//     the old one, its swap failing, ends). Tokens are never reused, so
//     a pass meant for request n cannot take the role from a later one.
//  2. Reading is held up by a request for at most two leadChecks, and
//     not at all once anything calls the peer: a watchdog runs while
//     the reader runs requests (lend starts one if none runs, under lmu,
//     where the watchdog also decides to end, so no request runs
//     unwatched) and passes the role from a request it sees running at
//     two looks in a row.
//  3. Reading stops once: the reader whose read fails, or who finds the
//     connection closed, sends the reason to Run; no other goroutine
//     reads then, and none starts (pass needs a request on the reader).
//
// Messages are read, and answers, cancellations and requests dispatched,
// in the order the peer sent them, whichever goroutine reads.

// lead reads while this goroutine holds the reading role.
func (c *Conn) lead() {
	for {
		r, err := c.nextRequest()
		if err != nil {
			c.readErr <- err
			return
		}
		tok := c.lend()
		c.run(r)
		if !c.busy.CompareAndSwap(tok, 0) {
			return // the role was passed on while r ran
		}
	}
}

// lend records that the reader runs a request, the one with the token it
// returns, and makes sure a watchdog runs.
func (c *Conn) lend() uint64 {
	c.lmu.Lock()
	c.lent++
	tok := c.lent
	if !c.watching {
		c.watching = true
		go c.watchdog()
	}
	c.lmu.Unlock()
	c.busy.Store(tok)
	return tok
}

// pass hands the reading role to a new goroutine if the reader is running
// the request with token tok (any request, if tok is 0).
func (c *Conn) pass(tok uint64) {
	if tok == 0 {
		tok = c.busy.Load()
	}
	if tok != 0 && c.busy.CompareAndSwap(tok, 0) {
		go c.lead()
	}
}

// leadCheck is how often the watchdog looks for a request that holds up
// reading: one running at two looks in a row has run for at least this
// long.
const leadCheck = time.Millisecond

// watchIdle is how many looks without a request the watchdog waits before
// it ends; the next request starts another. (A ticker while requests
// come, rather than a timer per request: arming a timer wakes an idle
// thread, a cost per request on a small machine.)
const watchIdle = 100

// watchdog passes the reading role on from a request that runs long.
func (c *Conn) watchdog() {
	t := time.NewTicker(leadCheck)
	defer t.Stop()
	var seen, lent uint64 // busy and lent at the last look
	idle := 0
	for {
		select {
		case <-t.C:
		case <-c.done:
			return
		}
		tok := c.busy.Load()
		if tok != 0 && tok == seen {
			c.pass(tok)
		}
		seen = tok
		c.lmu.Lock()
		if tok != 0 || c.lent != lent {
			lent, idle = c.lent, 0
		} else if idle++; idle >= watchIdle {
			c.watching = false
			c.lmu.Unlock()
			return
		}
		c.lmu.Unlock()
	}
}
