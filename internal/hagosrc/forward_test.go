package hagosrc

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// exported returns the exported top-level names declared in the Go files
// (not tests) of dir, methods as Type.Method.
func exported(t *testing.T, dir string) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					out[d.Name.Name] = true
					continue
				}
				typ := d.Recv.List[0].Type
				if star, ok := typ.(*ast.StarExpr); ok {
					typ = star.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					out[id.Name+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						out[s.Name.Name] = s.Name.IsExported()
					case *ast.ValueSpec:
						for _, n := range s.Names {
							out[n.Name] = n.IsExported()
						}
					}
				}
			}
		}
	}
	for n, ok := range out {
		if !ok {
			delete(out, n)
		}
	}
	return out
}

// homeAgentNames reads testdata/homeagent_names.txt.
func homeAgentNames(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("testdata/homeagent_names.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			names = append(names, line)
		}
	}
	return names
}

// TestForwardNames checks the forwarding package against HomeAgent's
// exported names: every one Hearth's sdk has must be forwarded (methods
// come with the aliased types), and none other. Those Hearth lacks are
// listed (go test -v -run TestForwardNames), so the gap stays visible.
func TestForwardNames(t *testing.T) {
	hearth := exported(t, filepath.Join(hearthSrc(t), "sdk"))
	fwd := exported(t, "forward/sdk")
	ha := homeAgentNames(t)
	var missing []string
	for _, n := range ha {
		typ, _, method := strings.Cut(n, ".")
		switch {
		case !hearth[n]:
			missing = append(missing, n)
		case method:
			if !fwd[typ] {
				t.Errorf("%s: Hearth has it but the forwarding package does not forward %s", n, typ)
			}
		case !fwd[n]:
			t.Errorf("%s: Hearth's sdk has it but the forwarding package does not forward it (add it to forward/sdk)", n)
		}
	}
	for n := range fwd {
		if !slices.Contains(ha, n) {
			t.Errorf("the forwarding package declares %s, which HomeAgent's sdk does not have", n)
		}
	}
	t.Logf("HomeAgent sdk names: %d; in Hearth: %d; missing from Hearth (%d): %s",
		len(ha), len(ha)-len(missing), len(missing), strings.Join(missing, " "))
}
