package terminal

import (
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/sdk"
)

func TestDescribeApproval(t *testing.T) {
	req := &policy.ApprovalRequest{
		Tool: "bank__pay", Title: "转账", Effect: sdk.EffectMoney, Expires: time.Now(),
		Target: &sdk.Target{Label: "Mallory \x1b[2K", Context: "IBAN DE00"},
		Args: []byte(`{"memo":"` + strings.Repeat("p", 500) + `","payment":{"to_account":"M-1","amount":999,"to":"x\u202e"},` +
			`"items":[{"price":1},{"price":2}],"empty":{},"we.ird":"\u009b","to":"first","to":"second"}`),
		Reason: "money needs approval",
	}
	got := describeApproval(req, false, 60)
	for _, want := range []string{
		"目标 target: Mallory ^[[2K\n               IBAN DE00\n",
		"要点 key:    payment.to_account = \"M-1\"\n               payment.amount = 999\n               payment.to = \"x<U+202E>\"\n" +
			"               items[0].price = 1\n               items[1].price = 2\n               to = \"first\"   ⚠",
		"to = \"second\"   ⚠ key given more than once",
		"参数 args:   memo = \"ppp",
		"empty = {}", `"we.ird" = "<U+009B>"`,
		"原因 why:    money needs approval\n再看",
	} {
		if !strings.Contains(strings.ReplaceAll(got, "  再看", "再看"), want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	for _, line := range strings.Split(got, "\n") {
		if stringWidth(line) > 60 {
			t.Errorf("line wider than the screen: %q", line)
		}
	}
	if n := strings.Count(got, "p"); n < 500 {
		t.Errorf("memo cut: %d of 500", n)
	}
	// Not an object: shown as written.
	req.Args = []byte(`"just a string"`)
	if got := describeApproval(req, false, 0); !strings.Contains(got, `参数 args:   "just a string"`) {
		t.Errorf("non-object args:\n%s", got)
	}
}

// Invisible characters in a value or a key name are shown, and a name
// that hides characters comes first, with a warning, next to the name it
// imitates.
func TestDescribeApprovalShowsHiddenCharacters(t *testing.T) {
	req := &policy.ApprovalRequest{
		Tool: "bank__pay", Title: "pay", Effect: sdk.EffectMoney, Expires: time.Now(),
		Args: []byte(`{"memo":"lunch","amount":5,"amo\u200bunt":500,"to":"bob\u200b\u200bmallory",` +
			`"no\u200fte":"\u2028x","opts":{"cur\ufeffrency":"EUR"},"flag":"🏴\udb40\udc67\udb40\udc7f 👩\u200d💻"}`),
	}
	got := describeApproval(req, false, 0)
	for _, want := range []string{
		"要点 key:    amount = 5   ⚠ key given more than once",
		"               amo<U+200B>unt = 500   ⚠ the name hides characters; it looks like amount / 键名含不可见字符   ⚠ key given more than once",
		`               to = "bob<U+200B><U+200B>mallory"`,
		`               no<U+200F>te = "\u2028x"   ⚠ the name hides characters; it looks like note`,
		`               opts.cur<U+FEFF>rency = "EUR"   ⚠ the name hides characters; it looks like opts.currency`,
		"参数 args:   memo = \"lunch\"\n               flag = \"🏴\U000E0067\U000E007F 👩\u200d💻\"\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.ContainsRune(got, 0x200b) || strings.ContainsRune(got, 0xfeff) || strings.ContainsRune(got, 0x2028) {
		t.Errorf("an invisible character is printed as is:\n%q", got)
	}
}

func TestParseAnswerNeedsTheWordForMoney(t *testing.T) {
	for _, tt := range []struct {
		effect sdk.Effect
		grant  bool
		in     string
		want   policy.Answer
		ok     bool
	}{
		{sdk.EffectWrite, false, "a", policy.AllowAlways, true},
		{sdk.EffectMoney, false, "a", "", false},
		{sdk.EffectPublic, false, "a\n", "", false},
		{sdk.EffectRead, true, "a", "", false},
		{sdk.EffectMoney, false, "always\n", policy.AllowAlways, true},
		{sdk.EffectMoney, false, "y", policy.AllowOnce, true},
		{sdk.EffectMoney, false, "n", policy.Refuse, true},
		{sdk.EffectMoney, false, "alway", "", false},
	} {
		got, ok := parseAnswer(&policy.ApprovalRequest{Effect: tt.effect, Grant: tt.grant}, tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s grant=%v %q: %q %v, want %q %v", tt.effect, tt.grant, tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
