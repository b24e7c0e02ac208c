package pluginrpc

import (
	"time"
)

// lead reads messages while this goroutine holds the reading role. A
// request is run by the goroutine that read it, right away, so a quick
// request never pays for waking another goroutine (nor for a timer: on a
// small machine arming one per request wakes an idle thread each time).
// The reading role passes to an idle goroutine (or a new one), so that
// other requests, cancellations and responses are read meanwhile, when the
// request is seen still running by the watchdog, or when anything makes a
// Call on the connection while it runs (a handler calling the peer needs
// its response read). Having run a request whose role was passed on, the
// goroutine waits to read again.
func (c *Conn) lead() {
	for {
		req, err := c.nextRequest()
		if err != nil {
			c.readErr <- err
			return
		}
		tok := c.jobSeq.Add(1)
		c.busy.Store(tok)
		if !c.watching.Load() && c.watching.CompareAndSwap(false, true) {
			go c.watchdog()
		}
		c.run(req)
		if c.busy.CompareAndSwap(tok, 0) {
			continue // still the reader
		}
		if !c.follow() {
			return
		}
	}
}

// passIfBusy passes the reading role on if its holder is running a
// request.
func (c *Conn) passIfBusy() {
	if tok := c.busy.Load(); tok != 0 && c.busy.CompareAndSwap(tok, 0) {
		c.passLead()
	}
}

// leadCheck is how often the watchdog looks for a request that holds up
// reading: one running at two looks in a row has run for at least this
// long.
const leadCheck = time.Millisecond

// watchIdle is how many looks without a request the watchdog waits before
// it ends; the next request starts it again.
const watchIdle = 100

// watchdog passes the reading role on from a request that runs long. One
// runs while requests keep coming.
func (c *Conn) watchdog() {
	t := time.NewTicker(leadCheck)
	defer t.Stop()
	var lastBusy, lastSeq uint64
	idle := 0
	for {
		select {
		case <-t.C:
		case <-c.done:
			return
		}
		busy := c.busy.Load()
		if busy != 0 && busy == lastBusy && c.busy.CompareAndSwap(busy, 0) {
			c.passLead()
		}
		lastBusy = busy
		seq := c.jobSeq.Load()
		if seq != lastSeq || busy != 0 {
			idle, lastSeq = 0, seq
			continue
		}
		if idle++; idle < watchIdle {
			continue
		}
		// Stop, unless a request started meanwhile and its reader saw
		// this watchdog still running.
		c.watching.Store(false)
		if c.jobSeq.Load() == seq || !c.watching.CompareAndSwap(false, true) {
			return
		}
		idle = 0
	}
}

// passLead gives the reading role to an idle goroutine, or a new one.
func (c *Conn) passLead() {
	select {
	case c.leadCh <- struct{}{}:
	default:
		go c.lead()
	}
}

// idleReader is how long a goroutine waits to read again before it ends.
const idleReader = 30 * time.Second

// follow waits for the reading role; false means this goroutine should end.
func (c *Conn) follow() bool {
	t := time.NewTimer(idleReader)
	defer t.Stop()
	select {
	case <-c.leadCh:
		return true
	case <-t.C:
		return false
	case <-c.done:
		return false
	}
}
