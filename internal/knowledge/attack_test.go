package knowledge

import (
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
)

// Reviewer A (issue 13): plugin ids ("Notes", "notes") and chat ids
// (Matrix rooms "!AbC:x" and "!abc:x") may differ only by case. On a
// folder that ignores case (macOS's and Windows' defaults) two such
// writers or scopes must not share a folder, or one reads, overwrites
// and removes the other's entries through Read, Put and Remove.
func TestFoldersDifferIgnoringCase(t *testing.T) {
	pairs := []struct{ a, b Key }{
		{Key{scope.Global, "Notes", "x"}, Key{scope.Global, "notes", "x"}},
		{Key{scope.Chat("matrix", "!AbC:srv"), "w", "x"}, Key{scope.Chat("matrix", "!abc:srv"), "w", "x"}},
		{Key{scope.Chat("matrix", "!AbC:srv"), "", "x"}, Key{scope.Chat("matrix", "!abc:srv"), "", "x"}},
	}
	for _, p := range pairs {
		ra, _ := relOf(p.a, Ext)
		rb, _ := relOf(p.b, Ext)
		if strings.EqualFold(ra, rb) {
			t.Errorf("%+v and %+v share %q / %q on a folder that ignores case", p.a, p.b, ra, rb)
		}
		for _, r := range []string{ra, rb} {
			if k, ok := locate(r); !ok || (k != p.a && k != p.b) {
				t.Errorf("locate(%q) = %+v %v", r, k, ok)
			}
		}
	}
}
