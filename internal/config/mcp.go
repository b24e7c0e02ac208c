package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// The MCP server types of config.json's "type".
const (
	MCPStdio = "stdio"
	MCPHTTP  = "http"
	MCPSSE   = "sse"
)

// MaxMCPNameLen caps an MCP server's name, so that its tools' names
// (mcp-<name>__<tool>) leave room for the tool's own within the 64
// characters models accept.
const MaxMCPNameLen = 32

var (
	mcpNameRE    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)
	envNameRE    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	headerNameRE = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$") // an RFC 9110 token
)

// ErrMCPName means an MCP server's name cannot name a plugin.
var ErrMCPName = errors.New("invalid MCP server name")

// ErrMCPURL means an MCP server's url is not an http(s) URL.
var ErrMCPURL = errors.New("not an http(s) URL")

// CheckMCPName returns an error wrapping ErrMCPName unless name can name
// an MCP server: letters, digits, "-" and "_", starting with a letter or
// digit, without "__" or a final "_" (a tool's name is split at its first
// "__"), at most MaxMCPNameLen characters.
func CheckMCPName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: the name is empty", ErrMCPName)
	case len(name) > MaxMCPNameLen:
		return fmt.Errorf("%w: %q is longer than %d characters", ErrMCPName, name, MaxMCPNameLen)
	case !mcpNameRE.MatchString(name):
		return fmt.Errorf("%w: %q may only have letters, digits, \"-\" and \"_\", and must start with a letter or digit", ErrMCPName, name)
	case strings.Contains(name, "__") || strings.HasSuffix(name, "_"):
		// mcp-<name>__<tool> is split at its first "__".
		return fmt.Errorf("%w: %q may not have \"__\" or end with \"_\" (tool names are mcp-<name>__<tool>)", ErrMCPName, name)
	}
	return nil
}

// Transport returns the transport s uses: its Type, or when that is
// empty, MCPHTTP for a URL and MCPStdio otherwise.
func (s MCPServer) Transport() string {
	if s.Type != "" {
		return s.Type
	}
	if s.URL != "" {
		return MCPHTTP
	}
	return MCPStdio
}

// Validate reports what is wrong with s, in words for the user who wrote
// it, or nil.
func (s MCPServer) Validate() error {
	switch t := s.Transport(); t {
	case MCPStdio:
		if s.Command == "" {
			return errors.New(`a stdio server needs a "command"`)
		}
		if s.URL != "" {
			return errors.New(`a stdio server has a "command", not a "url"`)
		}
		if len(s.Headers) > 0 {
			return errors.New(`"headers" are for a server with a "url"; a stdio server gets "env"`)
		}
		if s.OAuth != nil {
			return errors.New(`"oauth" is for a server with a "url"`)
		}
	case MCPHTTP, MCPSSE:
		if s.URL == "" {
			return fmt.Errorf(`a %s server needs a "url"`, t)
		}
		if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("url %q: %w", redactURL(s.URL), ErrMCPURL)
		}
		if s.Command != "" || len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != "" {
			return errors.New(`a server with a "url" has no "command", "args", "env" or "cwd"`)
		}
	default:
		return fmt.Errorf(`type %q is not "stdio", "http" or "sse"`, t)
	}
	for k := range s.Env {
		if !envNameRE.MatchString(k) {
			return fmt.Errorf("env: %q is not a variable name (letters, digits and \"_\", not starting with a digit)", k)
		}
	}
	for k, v := range s.Headers {
		if !headerNameRE.MatchString(k) {
			return fmt.Errorf("headers: %q is not a header name", k)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return fmt.Errorf("headers: the value of %q has a line break or NUL", k)
		}
	}
	if strings.ContainsRune(s.Command, 0) || strings.ContainsRune(s.Cwd, 0) {
		return errors.New("command and cwd may not hold NUL")
	}
	for _, a := range s.Args {
		if strings.ContainsRune(a, 0) {
			return errors.New("args may not hold NUL")
		}
	}
	for _, v := range s.Env {
		if strings.ContainsRune(v, 0) {
			return errors.New("env values may not hold NUL")
		}
	}
	return nil
}

// mcpEntryError is the error of the first entry of b's "mcpServers"
// (by name) that does not decode strictly, named as
// `mcpServers.NAME: unknown field "bogus"`; nil when they all do, or b
// has no such map.
func mcpEntryError(b []byte) error {
	var whole struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if json.Unmarshal(b, &whole) != nil {
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(whole.MCPServers)) {
		dec := json.NewDecoder(bytes.NewReader(whole.MCPServers[name]))
		dec.DisallowUnknownFields()
		var s MCPServer
		if err := dec.Decode(&s); err != nil {
			var typ *json.UnmarshalTypeError
			if errors.As(err, &typ) { // its message quotes no value, but say it plainly
				return fmt.Errorf("mcpServers.%s: %q should be %s", name, typ.Field, typ.Type)
			}
			msg, _ := strings.CutPrefix(err.Error(), "json: ")
			return fmt.Errorf("mcpServers.%s: %s", name, msg)
		}
	}
	return nil
}

// validateMCPServers checks every entry of f's mcpServers; the error names
// the entry (never a value, which may be a secret).
func validateMCPServers(path string, f *File) error {
	seen := map[string]string{}
	for name, s := range f.MCPServers {
		if err := CheckMCPName(name); err != nil {
			return fmt.Errorf("%s: mcpServers: %w", path, err)
		}
		k := strings.ToLower(name)
		if other, ok := seen[k]; ok {
			return fmt.Errorf("%s: mcpServers: %q and %q are the same name (names are compared without regard to case)", path, other, name)
		}
		seen[k] = name
		if err := s.Validate(); err != nil {
			return fmt.Errorf("%s: mcpServers: %q: %w", path, name, err)
		}
	}
	return nil
}

// redactURL returns raw with the password of its user information and the
// values of its query hidden, for messages and listings: a URL may carry
// a key.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unparsable URL)"
	}
	user := ""
	if u.User != nil {
		user = "***@"
		if _, has := u.User.Password(); has {
			user = url.PathEscape(u.User.Username()) + ":***@"
		}
		u.User = nil
	}
	if u.RawQuery != "" {
		keys := slices.Sorted(maps.Keys(u.Query()))
		for i, k := range keys {
			keys[i] = url.QueryEscape(k) + "=***"
		}
		u.RawQuery = strings.Join(keys, "&")
	}
	u.Fragment = ""
	s := u.String()
	if user != "" {
		if scheme, rest, ok := strings.Cut(s, "://"); ok {
			return scheme + "://" + user + rest
		}
	}
	return s
}

// RedactedURL returns s's URL with its user information's password and
// its query's values hidden, for listings.
func (s MCPServer) RedactedURL() string {
	if s.URL == "" {
		return ""
	}
	return redactURL(s.URL)
}
