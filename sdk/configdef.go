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

// IsSecret reports whether d declares a secret: Secret set, or the type
// password (HomeAgent's way of saying so). Hearth masks a secret's value
// in the CLI, the HTTP API, the web UI and logs.
func (d ConfigDef) IsSecret() bool {
	return d.Secret || strings.EqualFold(strings.TrimSpace(d.Type), "password")
}

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

// checkRange tests n against d's Min and Max. Both zero means no range
// (HomeAgent's omitted fields); otherwise Max below Min means no upper
// bound, so Min: 1 alone works.
func checkRange(d ConfigDef, n float64) error {
	if d.Min == 0 && d.Max == 0 {
		return nil
	}
	if n < d.Min {
		return fmt.Errorf("%v is below the minimum %v (小于最小值 %v)", n, d.Min, d.Min)
	}
	if d.Max > d.Min && n > d.Max {
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
