package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
)

// Health is GET /v1/health's answer.
type Health struct {
	Status  string `json:"status"` // "ok"
	Version string `json:"version"`
	PID     int    `json:"pid"`
	DataDir string `json:"data_dir"`
}

// Hello is GET /v1/hello's answer: the daemon proves it knows the token
// without anyone sending it.
type Hello struct {
	PID int `json:"pid"`
	// Proof is HelloProof(token, nonce), in lowercase hex.
	Proof string `json:"proof"`
}

// Version is reported by /v1/health; cmd/hearth sets it.
var Version = "dev"

// HelloNonceLen is the length in bytes of GET /v1/hello's nonce, which
// travels as 2*HelloNonceLen hex digits.
const HelloNonceLen = 32

// helloProofPrefix separates the proof's HMAC from any other use of the
// token as a key.
const helloProofPrefix = "hearth-daemon-proof:"

// HelloProof is the proof GET /v1/hello gives for nonce (its hex form,
// as sent): hex(HMAC-SHA256(token, "hearth-daemon-proof:" + nonce)). A
// client computes it too and compares in constant time before it sends
// the token anywhere: whoever holds the daemon's port without knowing the
// token cannot answer. The HMAC of a nonce of the asker's choosing tells
// nothing of the token, so the route needs no token and no rate limit.
func HelloProof(token, nonce string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte(helloProofPrefix + nonce))
	return hex.EncodeToString(m.Sum(nil))
}

// validNonce reports whether n is 2*HelloNonceLen hex digits.
func validNonce(n string) bool {
	if len(n) != 2*HelloNonceLen {
		return false
	}
	_, err := hex.DecodeString(n)
	return err == nil
}

func (s *Server) healthRoutes() []route {
	return []route{
		{method: "GET", path: "/v1/health", summary: "Is the daemon up; its version, pid and data directory.",
			out: Health{}, h: func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, http.StatusOK, Health{Status: "ok", Version: Version, PID: os.Getpid(), DataDir: s.app.DataDir})
			}},
		{method: "GET", path: "/v1/hello", public: true,
			summary: "Without a token: the daemon proves it knows the token (HMAC of the query's nonce), so a client can check it before sending the token.",
			out:     Hello{}, h: s.hello},
	}
}

// hello answers GET /v1/hello?nonce=HEX with the proof that this server
// knows the token.
func (s *Server) hello(w http.ResponseWriter, r *http.Request) {
	nonce := r.URL.Query().Get("nonce")
	if !validNonce(nonce) {
		writeFieldErrors(w, "bad nonce", map[string]string{"nonce": "must be 64 hex digits (32 random bytes)"})
		return
	}
	tok := s.token()
	if tok == "" {
		writeError(w, http.StatusServiceUnavailable, "no_token", "the daemon has no API token: run `hearth token --rotate`")
		return
	}
	writeJSON(w, http.StatusOK, Hello{PID: os.Getpid(), Proof: HelloProof(tok, nonce)})
}
