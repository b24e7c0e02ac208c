package pluginhost

import (
	"encoding/json"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

// FuzzDecodeAnswers checks that a plugin's answer to hook.decide or
// tool.resolveEffect is accepted only when it is a decision with one of
// the three verdicts, or an assessment with one of the four effects.
func FuzzDecodeAnswers(f *testing.F) {
	for _, s := range []string{`{"verdict":"allow"}`, `{"verdict":"deny","reason":"x"}`, `null`, `{}`, `"allow"`,
		`{"verdict":""}`, `{"effect":"money","target":{"label":"bob"}}`, `{"effect":"teleport"}`, `[`, ``,
		`{"Verdict":"ask"}`, `{"verdict":"allow","verdict":"maybe"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if d, err := decodeDecision(json.RawMessage(b)); err == nil {
			switch d.Verdict {
			case sdk.VerdictAllow, sdk.VerdictAsk, sdk.VerdictDeny:
			default:
				t.Fatalf("%q accepted as verdict %q", b, d.Verdict)
			}
		}
		if a, err := decodeAssessment(json.RawMessage(b)); err == nil && !a.Effect.Valid() {
			t.Fatalf("%q accepted as effect %q", b, a.Effect)
		}
	})
}
