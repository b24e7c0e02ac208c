package sdk

import "testing"

// IsSecret: Secret, the types password and secret (any case), and a key
// named like a secret of any type but a boolean or a count of tokens.
func TestConfigDefIsSecret(t *testing.T) {
	for _, c := range []struct {
		d    ConfigDef
		want bool
	}{
		{ConfigDef{Key: "city", Type: "string"}, false},
		{ConfigDef{Key: "city", Type: "string", Secret: true}, true},
		{ConfigDef{Key: "login", Type: "password"}, true},
		{ConfigDef{Key: "login", Type: " Secret "}, true},
		{ConfigDef{Key: "api_key", Type: "string"}, true},
		{ConfigDef{Key: "BotToken", Type: "text"}, true},
		{ConfigDef{Key: "provider_key", Type: "select"}, true},
		{ConfigDef{Key: "use_token", Type: "bool"}, false},
		{ConfigDef{Key: "max_items", Type: "int"}, false},
		{ConfigDef{Key: "max_tokens", Type: "int"}, false},
		{ConfigDef{Key: "max_tokens", Type: "string"}, true},
		{ConfigDef{Key: "pin_password", Type: "int"}, true},
	} {
		if got := c.d.IsSecret(); got != c.want {
			t.Errorf("%+v: IsSecret = %v", c.d, got)
		}
	}
}
