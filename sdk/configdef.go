package sdk

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// The types a ConfigDef may declare. Hearth's own names (string, number,
// boolean) and HomeAgent's (int, float, bool, password, select, text,
// textarea) are both accepted; each is checked on every write path (a
// plugin's Set, `hearth settings set`, the HTTP API and so the web UI).
// A type nobody defines is stored unchecked, as before.

// kind is what a declared type checks.
type kind int

const (
	kindAny    kind = iota // an unknown type: any JSON value
	kindString             // a string (options, when given, limit it)
	kindSelect             // one of the options
	kindNumber             // a number within min..max
	kindInt                // a whole number within min..max
	kindBool               // true or false
)

// kindOf maps a declared type to what it checks; case does not matter.
func kindOf(typ string) kind {
	switch strings.ToLower(strings.TrimSpace(typ)) {
	case "string", "text", "textarea", "password", "secret", "url":
		return kindString
	case "select", "enum":
		return kindSelect
	case "number", "float", "double":
		return kindNumber
	case "int", "integer":
		return kindInt
	case "boolean", "bool":
		return kindBool
	}
	return kindAny
}

// IsSecret reports whether d is a secret: Secret set, the type password
// (HomeAgent's way of saying so) or secret, or a key named like a secret
// (see SecretName), so declaring {Key: "api_key", Type: "string"} does
// not unmask it. Two kinds of value carry no secret and are exempt from
// the name: a boolean, and a number counting tokens (max_tokens). Hearth
// masks a secret's value in the CLI, the HTTP API, the web UI and logs.
func (d ConfigDef) IsSecret() bool {
	switch strings.ToLower(strings.TrimSpace(d.Type)) {
	case "password", "secret":
		return true
	}
	if d.Secret {
		return true
	}
	tokenCount := d.IsNumber() && strings.Contains(strings.ToLower(d.Key), "tokens")
	return SecretName(d.Key) && !d.IsBool() && !tokenCount
}

// SecretName reports whether a setting's key is named like a secret: it
// contains token, secret, password, passwd, apikey, api_key, api-key or
// credential, or ends in _key or .key, or is key (any case). Hearth
// treats such a key as a secret whether or not it is declared.
func SecretName(key string) bool {
	k := strings.ToLower(key)
	for _, w := range []string{"token", "secret", "password", "passwd", "apikey", "api_key", "api-key", "credential"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return strings.HasSuffix(k, "_key") || strings.HasSuffix(k, ".key") || k == "key"
}

// IsBool reports whether d's type is a boolean (boolean, bool), a type
// whose value cannot carry a secret.
func (d ConfigDef) IsBool() bool { return kindOf(d.Type) == kindBool }

// Check tests v, a value as JSON decodes it, against d: its type, its
// options and its range. A JSON number decodes as float64, so an int is a
// float64 without a fraction. Messages are in English with the Chinese a
// HomeAgent user reads beside them; for a string they can quote the value,
// so a host replaces them for a secret. Hearth runs Check on every write
// (a plugin's Set, the CLI, the HTTP API); sdktest runs it too.
func (d ConfigDef) Check(v any) error {
	k := kindOf(d.Type)
	switch k {
	case kindString, kindSelect:
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a string, got %s (需要字符串)", jsonKind(v))
		}
		if (k == kindSelect || len(d.Options) > 0) && !slices.Contains(d.Options, str) {
			return fmt.Errorf("%q is not one of %q (不在可选项中)", str, d.Options)
		}
	case kindNumber, kindInt:
		n, ok := v.(float64)
		if !ok {
			if k == kindInt {
				return fmt.Errorf("want a whole number, got %s (需要整数)", jsonKind(v))
			}
			return fmt.Errorf("want a number, got %s (需要数字)", jsonKind(v))
		}
		if k == kindInt && n != math.Trunc(n) {
			return fmt.Errorf("%v is not a whole number (需要整数)", n)
		}
		if err := checkRange(d, n); err != nil {
			return err
		}
	case kindBool:
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("want true or false, got %s (需要 true 或 false)", jsonKind(v))
		}
	}
	return nil
}

// checkRange tests n against d's Min and Max. HomeAgent's ConfigDef
// omits a zero Min or Max (omitempty), so zero means "not given": both
// zero is no range; Max zero with a positive Min is no upper bound, so
// Min: 1 alone works. Any other pair is a closed range, Min == Max too
// (one allowed value); a non-zero Max below Min admits nothing, which
// the declaration's author sees at the first write.
func checkRange(d ConfigDef, n float64) error {
	if d.Min == 0 && d.Max == 0 {
		return nil
	}
	if n < d.Min {
		return fmt.Errorf("%v is below the minimum %v (小于最小值 %v)", n, d.Min, d.Min)
	}
	if !(d.Max == 0 && d.Min > 0) && n > d.Max {
		return fmt.Errorf("%v is above the maximum %v (大于最大值 %v)", n, d.Max, d.Max)
	}
	return nil
}

// IsNumber reports whether d's type is a number (number, float, int).
func (d ConfigDef) IsNumber() bool {
	k := kindOf(d.Type)
	return k == kindNumber || k == kindInt
}

// jsonKind names v's JSON type for a message, never its value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// UIType is the type a form shows for d: HomeAgent's types mapped to
// Hearth's three (int and float to number, bool to boolean; select,
// password and text to string), and the step: d.Step, or 1 for an int
// that declares none. A type nobody defines is returned as declared.
func (d ConfigDef) UIType() (typ string, step float64) {
	switch kindOf(d.Type) {
	case kindString, kindSelect:
		return "string", d.Step
	case kindNumber:
		return "number", d.Step
	case kindInt:
		if d.Step <= 0 {
			return "number", 1
		}
		return "number", d.Step
	case kindBool:
		return "boolean", d.Step
	}
	return d.Type, d.Step
}
