package scaffold

import "testing"

func TestExpand(t *testing.T) {
	data := map[string]string{"ID": "weather", "Empty": ""}
	for _, c := range []struct{ in, want, err string }{
		{"plain", "plain", ""},
		{"[[.ID]]", "weather", ""},
		{"a [[.ID]]__b [[.ID]]", "a weather__b weather", ""},
		{"x[[.Empty]]y", "xy", ""},
		{"one [ and ] stay [not] ]]", "one [ and ] stay [not] ]]", ""},
		{"[[.Missing]]", "", "no value for [[.Missing]]"},
		{"[[ID]]", "", "[[ID]]: want [[.Key]]"},
		{"[[.]]", "", "[[.]]: want [[.Key]]"},
		{"ok [[.ID", "", "unclosed [[ at byte 3"},
	} {
		got, err := expand([]byte(c.in), data)
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("expand(%q): error %v, want %q", c.in, err, c.err)
		case c.err == "" && (err != nil || string(got) != c.want):
			t.Errorf("expand(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}
