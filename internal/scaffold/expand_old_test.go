package scaffold

import (
	"bytes"
	"io/fs"
	"strings"
	"testing"
	"text/template"
)

// oldExpand is how templates were expanded before expand: text/template
// with [[ ]] delimiters and missingkey=error. Tests only; Hearth's binary
// no longer links text/template.
func oldExpand(body []byte, data map[string]string) ([]byte, error) {
	t, err := template.New("t").Delims("[[", "]]").Option("missingkey=error").Parse(string(body))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := t.Execute(&out, data); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// hostileValues are values a plugin id or a checkout path could carry
// into a template: template syntax of both kinds, quotes, and text
// that is not ASCII.
var hostileValues = []string{
	"weather", "a1", "ai_image", "x-y_z9",
	"[[.ID]]", "[[.HearthSrc]]", "{{.ID}}", "[[ .ID ]]", "]]", "[[", "[[- .ID -]]",
	`/home/Zoë/src/hearth "quoted" $HOME \n` + "`x`", "/srv/中文/hearth", "",
}

// TestExpandMatchesTextTemplate: every embedded template, for every
// language, expands exactly as text/template expanded it, for plain
// values and for values that hold template syntax (which is written out
// as it is, never expanded).
func TestExpandMatchesTextTemplate(t *testing.T) {
	n := 0
	err := fs.WalkDir(templates, "templates", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := templates.ReadFile(p)
		if err != nil {
			return err
		}
		for _, v := range hostileValues {
			data := map[string]string{"ID": v}
			if strings.HasPrefix(p, "templates/go/") {
				data["HearthSrc"], data["GoVersion"], data["Requires"] = v+"/src", "1.26.0", "\tx.org/m v1.0.0 // indirect\n"
				data["ModHearthSrc"] = modQuote(v + "/src")
			}
			want, werr := oldExpand(body, data)
			got, gerr := expand(body, data)
			if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
				t.Errorf("%s with %q: expand = %q, %v; text/template = %q, %v", p, v, got, gerr, want, werr)
			}
			if werr != nil {
				t.Errorf("%s with %q: %v", p, v, werr)
			}
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10*len(hostileValues) {
		t.Fatalf("compared %d expansions: the templates were not found", n)
	}
}

// FuzzExpand: whatever expand accepts, text/template accepted with the
// same output, for any body and any value.
func FuzzExpand(f *testing.F) {
	for _, v := range hostileValues {
		f.Add("module example.com/[[.ID]]\n[[.Src]]", v)
	}
	f.Add("[[.ID]][[.ID]]", "x")
	f.Add("[[ .ID ]] [[.ID | printf]]", "x")
	f.Fuzz(func(t *testing.T, body, v string) {
		data := map[string]string{"ID": v, "Src": "/s"}
		got, err := expand([]byte(body), data)
		if err != nil {
			return
		}
		want, werr := oldExpand([]byte(body), data)
		if werr != nil || !bytes.Equal(got, want) {
			t.Fatalf("expand(%q) = %q; text/template = %q, %v", body, got, want, werr)
		}
	})
}
