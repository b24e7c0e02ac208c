package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// uiCSP is the web UI's Content-Security-Policy: its own scripts and
// styles only (no inline script), API calls to this server only, images
// from itself (a model's answer cannot make the browser fetch a tracking
// pixel), and no framing.
const uiCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// uiRoutes: the web UI's files (Options.UI, web.FS() in the daemon) at /.
// A path that names no file and does not look like one (no extension)
// gets index.html, so the UI's own addresses (/chat/3) survive a reload.
// Files under assets/ are named by their content's hash and cached for a
// year; everything else is revalidated.
//
// The route has no method: "/" for every method is the most general
// pattern, so it conflicts with no API route (Go 1.22 mux rules) and
// catches what no API route matches. Under /v1 that is a JSON 404, or a
// 405 naming the methods the path has; elsewhere a method other than GET
// or HEAD is a 405.
func (s *Server) uiRoutes() []route {
	if s.opts.UI == nil {
		return nil
	}
	ui := &uiFiles{fsys: s.opts.UI}
	return []route{{method: "", path: "/", summary: "the web UI (index.html for the UI's own paths)", public: true,
		h: func(w http.ResponseWriter, r *http.Request) {
			if p := r.URL.Path; p == "/v1" || strings.HasPrefix(p, "/v1/") {
				s.noAPIRoute(w, r)
				return
			}
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				w.Header().Set("Allow", "GET, HEAD")
				writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "the web UI's files are read with GET")
				return
			}
			ui.serve(w, r)
		}}}
}

// apiMethods are the methods an API route may have.
var apiMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

// noAPIRoute answers a /v1 request that no API route matched (it fell
// through to the UI's catch-all): 405 with Allow when the path has routes
// for other methods, else 404, both as JSON errors.
func (s *Server) noAPIRoute(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range apiMethods {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pat := s.mux.Handler(probe); strings.TrimSpace(pat) != "/" && pat != "" {
			allow = append(allow, m)
			if m == "GET" {
				allow = append(allow, "HEAD")
			}
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", r.Method+" is not allowed on "+r.URL.Path)
		return
	}
	writeError(w, http.StatusNotFound, "not_found", "no such API route: "+r.URL.Path)
}

// uiFiles serves an fs.FS with the UI's headers, gzip-compressing text
// files once, when first asked for.
type uiFiles struct {
	fsys fs.FS
	mu   sync.Mutex
	gz   map[string][]byte // path -> gzip of its content
}

func (u *uiFiles) serve(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
	if name == "" {
		name = "index.html"
	}
	body, err := fs.ReadFile(u.fsys, name)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrInvalid) {
			http.Error(w, "reading the web UI failed", http.StatusInternalServerError)
			return
		}
		if path.Ext(name) != "" || strings.HasPrefix(name, "assets/") {
			http.NotFound(w, r)
			return
		}
		name = "index.html"
		if body, err = fs.ReadFile(u.fsys, name); err != nil {
			http.NotFound(w, r)
			return
		}
	}
	h := w.Header()
	h.Set("Content-Security-Policy", uiCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	if strings.HasPrefix(name, "assets/") {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = http.DetectContentType(body)
	}
	h.Set("Content-Type", ctype)
	h.Add("Vary", "Accept-Encoding")
	sum := sha256.Sum256(body)
	etag := hex.EncodeToString(sum[:8])
	if len(body) > 1024 && compressible(ctype) && acceptsGzip(r) {
		body = u.gzipped(name, body)
		h.Set("Content-Encoding", "gzip")
		etag += "-gz"
	}
	h.Set("ETag", `"`+etag+`"`)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

func compressible(ctype string) bool {
	return strings.HasPrefix(ctype, "text/") || strings.Contains(ctype, "javascript") ||
		strings.Contains(ctype, "json") || strings.Contains(ctype, "svg")
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.TrimSpace(q) != "q=0" {
			return true
		}
	}
	return false
}

// gzipped returns body compressed, computed once per file.
func (u *uiFiles) gzipped(name string, body []byte) []byte {
	u.mu.Lock()
	defer u.mu.Unlock()
	if z, ok := u.gz[name]; ok {
		return z
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(body) // writes to a bytes.Buffer do not fail
	zw.Close()
	if u.gz == nil {
		u.gz = map[string][]byte{}
	}
	u.gz[name] = buf.Bytes()
	return u.gz[name]
}
