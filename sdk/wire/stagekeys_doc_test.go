package wire

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The stage-context key tables of the Python and TypeScript SDK READMEs
// list exactly the keys StageContext has on the wire.
func TestSDKReadmesListStageContextKeys(t *testing.T) {
	var want []string
	typ := reflect.TypeFor[StageContext]()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		want = append(want, name)
	}
	slices.Sort(want)
	key := regexp.MustCompile("`([a-zA-Z]+)`")
	for _, readme := range []string{"../python/README.md", "../typescript/README.md"} {
		b, err := os.ReadFile(readme)
		if err != nil {
			t.Fatal(err)
		}
		_, table, ok := strings.Cut(string(b), "| key | what it holds |")
		if !ok {
			t.Fatalf("%s: no stage-context key table", readme)
		}
		table, _, _ = strings.Cut(table, "\n\n")
		var got []string
		for line := range strings.Lines(table) {
			cells := strings.Split(line, "|")
			if len(cells) < 3 || strings.HasPrefix(cells[1], "---") {
				continue
			}
			for _, m := range key.FindAllStringSubmatch(cells[1], -1) {
				got = append(got, m[1])
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s lists %v, the wire has %v", readme, got, want)
		}
	}
}
