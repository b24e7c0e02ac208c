package config

import (
	"net/url"
	"strings"
)

// masked is what a secret in an argument is shown as.
const masked = "***"

// secretFlagWords are the words that make a flag's value a secret: a
// flag whose name holds one (--token, --api-key, --client-secret,
// --db-password) has its value masked.
var secretFlagWords = []string{"token", "key", "secret", "password", "passwd"}

// MaskArgs returns args as they may be shown (`hearth mcp list`, `hearth
// plugin`): the values of flags named like a secret (`--token X`,
// `--api-key=X`) and the passwords and query values of URLs (a DSN
// `postgres://u:pw@h/db?sslkey=...`, alone or as a flag's value) become
// "***". Everything else is kept, and so is the number of arguments.
func MaskArgs(args []string) []string {
	out := make([]string, len(args))
	next := false // the previous argument was a secret flag without "="
	for i, a := range args {
		if next {
			out[i], next = masked, false
			continue
		}
		if strings.HasPrefix(a, "-") && a != "-" && a != "--" {
			name, val, hasVal := strings.Cut(a, "=")
			switch {
			case secretFlag(name) && hasVal:
				out[i] = name + "=" + masked
			case secretFlag(name):
				out[i], next = a, true
			case hasVal:
				out[i] = name + "=" + maskURL(val)
			default:
				out[i] = a
			}
			continue
		}
		out[i] = maskURL(a)
	}
	return out
}

// secretFlag reports a flag (with its dashes) named like a secret.
func secretFlag(name string) bool {
	n := strings.ToLower(strings.TrimLeft(name, "-"))
	for _, w := range secretFlagWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// maskURL masks the password and the query values of s when it is a URL
// with a scheme; other text is returned as it is. A URL that does not
// parse but has user info loses all of it.
func maskURL(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || scheme == "" || strings.ContainsAny(scheme, " /") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil {
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			return scheme + "://" + masked + rest[at:]
		}
		return s
	}
	changed := false
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "MASKEDPASSWORD")
		changed = true
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{"MASKEDVALUE"}
		}
		u.RawQuery = q.Encode()
		changed = true
	}
	if !changed {
		return s
	}
	return strings.NewReplacer("MASKEDPASSWORD", masked, "MASKEDVALUE", masked).Replace(u.String())
}
