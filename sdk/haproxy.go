package sdk

import (
	"net"
	"strconv"
	"strings"
)

// ProxyDecl is HomeAgent's declaration that a plugin's HTTP service should
// be reverse-proxied under a subdomain of the host. Hearth has no reverse
// proxy: PluginSDK.DeclareProxy logs a warning and does nothing, and a
// "proxies" entry of plg.json is ignored. The validation functions below
// work as HomeAgent documents them.
type ProxyDecl struct {
	Name      string `json:"name,omitempty"`      // tells a plugin's declarations apart ("ui", "api")
	Host      string `json:"host,omitempty"`      // subdomain label; default NormalizeProxyHost(plugin)
	Target    string `json:"target"`              // upstream, "127.0.0.1:12100" or "http://host[:port][/prefix]"
	WebSocket bool   `json:"websocket,omitempty"` // pass WebSocket upgrades through
	Auth      string `json:"auth,omitempty"`      // ProxyAuthHomeAgent (default) or ProxyAuthNone
}

// The ProxyDecl.Auth values; empty means ProxyAuthHomeAgent.
const (
	ProxyAuthHomeAgent = "homeagent" // the host authenticates the caller
	ProxyAuthNone      = "none"      // requests pass unauthenticated to the upstream
)

// ProxyDeclarer is HomeAgent's callback collecting proxy declarations.
type ProxyDeclarer func(decl ProxyDecl)

// ValidProxyAuth reports whether auth is a ProxyDecl.Auth value.
func ValidProxyAuth(auth string) bool {
	return auth == "" || auth == ProxyAuthHomeAgent || auth == ProxyAuthNone
}

// EffectiveProxyAuth returns auth, or ProxyAuthHomeAgent for "".
func EffectiveProxyAuth(auth string) string {
	if auth == "" {
		return ProxyAuthHomeAgent
	}
	return auth
}

// labelByte reports whether c may appear in a DNS label as HomeAgent
// writes them: lower-case letters, digits and '-'.
func labelByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-'
}

// ValidProxyHostLabel reports whether label is a DNS label of 1 to 63
// lower-case letters, digits and hyphens, not starting or ending with a
// hyphen.
func ValidProxyHostLabel(label string) bool {
	if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
		return false
	}
	for i := range len(label) {
		if !labelByte(label[i]) {
			return false
		}
	}
	return true
}

// NormalizeProxyHost derives a host label from a plugin name: lower case,
// '_' to '-', other bytes dropped, at most 63 bytes, "plugin" when
// nothing is left.
func NormalizeProxyHost(pluginName string) string {
	s := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(pluginName)), "_", "-")
	b := make([]byte, 0, len(s))
	for i := range len(s) {
		if labelByte(s[i]) {
			b = append(b, s[i])
		}
	}
	out := strings.Trim(string(b), "-")
	if len(out) > 63 {
		out = strings.Trim(out[:63], "-")
	}
	if out == "" {
		return "plugin"
	}
	return out
}

// ValidateProxyDecl returns what is wrong with d, or "" when it is valid:
// a target is required, as host:port, or with an http or https scheme
// where the port may be left out; the port is 1 to 65535; Auth and Host
// must be valid.
func ValidateProxyDecl(d ProxyDecl) string {
	if strings.TrimSpace(d.Target) == "" {
		return "target is empty: give the upstream address (127.0.0.1:12100 or http://127.0.0.1:12100)"
	}
	if !ValidProxyAuth(d.Auth) {
		return "auth must be \"\", \"homeagent\" or \"none\": " + d.Auth
	}
	if d.Host != "" && !ValidProxyHostLabel(d.Host) {
		return "host is not a DNS label (lower-case letters, digits, inner hyphens): " + d.Host
	}
	rest, scheme := d.Target, ""
	if i := strings.Index(rest, "://"); i >= 0 {
		scheme = strings.ToLower(rest[:i])
		if scheme != "http" && scheme != "https" {
			return "target scheme must be http or https: " + d.Target
		}
		rest = rest[i+3:]
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	host, port, err := net.SplitHostPort(rest)
	if err != nil {
		if scheme == "" {
			return "target needs host:port, or an http:// scheme to leave the port out: " + d.Target
		}
		host, port = rest, ""
	}
	if host == "" {
		return "target has no host: " + d.Target
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "target port must be a number from 1 to 65535: " + d.Target
		}
	}
	return ""
}

// DeclareProxy is HomeAgent's request to reverse-proxy one of the
// plugin's services. Hearth has no reverse proxy: it logs a warning
// naming the declaration and does nothing else.
func (s *PluginSDK) DeclareProxy(decl ProxyDecl) {
	s.Logger().Warn("DeclareProxy: Hearth does not reverse-proxy plugin services; reach the service at its own address",
		"name", decl.Name, "host", decl.Host, "target", decl.Target)
}
