package settings

import "github.com/hearth-agent/hearth/sdk"

// The checks themselves are sdk.ConfigDef's (Check, IsSecret), so sdktest
// checks as Hearth does.

// SecretDef reports whether d is a secret: Secret set, the type password
// or secret, or a key named like a secret unless boolean. See
// sdk.ConfigDef.IsSecret.
func SecretDef(d sdk.ConfigDef) bool { return d.IsSecret() }

// check tests a value against its declaration; see sdk.ConfigDef.Check.
func check(d sdk.ConfigDef, v any) error { return d.Check(v) }

// isNumeric reports whether d's type is a number of either kind.
func isNumeric(d sdk.ConfigDef) bool { return d.IsNumber() }

// UIType is the type a form shows for d: HomeAgent's types mapped to
// Hearth's three (int and float to number, bool to boolean, select,
// password and text to string), so the web UI edits them with the right
// control. step is d.Step, or 1 for an int that declares none. A type
// nobody defines is returned as declared.
func UIType(d sdk.ConfigDef) (typ string, step float64) {
	return d.UIType()
}

// knownType reports whether d's type is one Check checks.
func knownType(d sdk.ConfigDef) bool {
	typ, _ := d.UIType()
	return typ == "string" || typ == "number" || typ == "boolean"
}
