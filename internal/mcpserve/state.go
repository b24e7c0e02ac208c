package mcpserve

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"sync"
	"time"
)

// An approval form sent to a client of the newer protocol (SEP-2322) ends
// the call's round; the client retries the call with the user's answer in
// inputResponses and the requestState Hearth gave it. Nothing stops a
// client from sending an answer nobody was asked, so an answer counts
// only with a state Hearth issued for this session, this tool and these
// exact arguments, before it expires, once.
//
// A state is "v1.<nonce>.<expiry>.<mac>": a random nonce, the expiry in
// Unix seconds, and an HMAC-SHA256 (under a key drawn when the Server is
// made, so states die with the process) over the session's id, the tool,
// the arguments' hash, the nonce and the expiry.

// stateVersion prefixes the states Hearth issues.
const stateVersion = "v1"

// maxStateLen bounds a state worth parsing.
const maxStateLen = 256

// approvalStates issues and redeems the request states of approval forms.
type approvalStates struct {
	key []byte
	now func() time.Time

	mu   sync.Mutex
	used map[string]time.Time // redeemed nonces -> their expiry
}

func newApprovalStates() *approvalStates {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		panic("mcpserve: no randomness: " + err.Error()) // crypto/rand does not fail on supported systems
	}
	return &approvalStates{key: key, now: time.Now, used: map[string]time.Time{}}
}

// issue returns the state of a form sent to session about a call of tool
// with arguments hashed to argsHash, valid until expires.
func (a *approvalStates) issue(session, tool, argsHash string, expires time.Time) string {
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		panic("mcpserve: no randomness: " + err.Error())
	}
	n := base64.RawURLEncoding.EncodeToString(nonce)
	exp := strconv.FormatInt(expires.Unix(), 10)
	return stateVersion + "." + n + "." + exp + "." + a.mac(session, tool, argsHash, n, exp)
}

// redeem reports whether state was issued for this session, tool and
// arguments, has not expired and was not redeemed before; a state it
// accepts is used up.
func (a *approvalStates) redeem(state, session, tool, argsHash string) bool {
	if len(state) > maxStateLen {
		return false
	}
	parts := strings.Split(state, ".")
	if len(parts) != 4 || parts[0] != stateVersion {
		return false
	}
	n, exp, mac := parts[1], parts[2], parts[3]
	secs, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || strconv.FormatInt(secs, 10) != exp {
		return false
	}
	if !hmac.Equal([]byte(mac), []byte(a.mac(session, tool, argsHash, n, exp))) {
		return false
	}
	expires := time.Unix(secs, 0)
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, e := range a.used {
		if !now.Before(e) {
			delete(a.used, k) // expired: it would be refused anyway
		}
	}
	if !now.Before(expires) {
		return false
	}
	if _, ok := a.used[n]; ok {
		return false
	}
	a.used[n] = expires
	return true
}

// mac is the state's HMAC over its fields, each length-prefixed.
func (a *approvalStates) mac(fields ...string) string {
	h := hmac.New(sha256.New, a.key)
	for _, f := range fields {
		h.Write([]byte(strconv.Itoa(len(f)) + ":" + f))
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}
