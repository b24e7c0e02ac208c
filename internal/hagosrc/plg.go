package hagosrc

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hearth-agent/hearth/internal/names"
)

// PlgFile is the name of a HomeAgent plugin's project file.
const PlgFile = "plg.json"

// Plg is what Hearth reads of plg.json, HomeAgent's project file. Its
// other fields (targets, bundle, outdir, replaces, source_dirs, sdk) are
// for HomeAgent's own build tool and mean nothing here.
type Plg struct {
	Name        string `json:"name"`
	NameZh      string `json:"name_zh,omitempty"`
	NameEn      string `json:"name_en,omitempty"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description,omitempty"`
	Author      string `json:"author,omitempty"`
	// Entry is the built library's file name (plugin.so) of the .so era;
	// a Lua plugin's entry names a .lua file.
	Entry string `json:"entry,omitempty"`
}

// ErrNoPlg means a folder has no plg.json.
var ErrNoPlg = errors.New("no " + PlgFile)

// ReadPlg reads and checks dir/plg.json.
func ReadPlg(dir string) (*Plg, error) {
	b, err := os.ReadFile(filepath.Join(dir, PlgFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", dir, ErrNoPlg)
	}
	if err != nil {
		return nil, err
	}
	return ParsePlg(filepath.Join(dir, PlgFile), b)
}

// ParsePlg decodes and checks the content of a plg.json.
func ParsePlg(path string, b []byte) (*Plg, error) {
	var p Plg
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !names.ValidID(p.Name) {
		return nil, fmt.Errorf("%s: name %q must be %s", path, p.Name, names.IDRule)
	}
	return &p, nil
}

// Lua reports whether plg.json describes a Lua plugin, which Hearth does
// not run.
func (p *Plg) Lua() bool { return strings.HasSuffix(strings.ToLower(p.Entry), ".lua") }

// source is what Build learns from a folder's Go files.
type source struct {
	factory string   // NewPlugin or NewPluginFactory
	groups  []string // capability groups the code calls for
}

// groupOf maps a PluginSDK accessor to the capability group it needs.
var groupOf = map[string]string{
	"Settings": "settings", "LLM": "llm", "Memory": "memory", "TextMemory": "memory",
	"DocMemory": "memory", "Knowledge": "knowledge",
}

// readSource parses the folder's Go files (not tests): they must be
// package main without a main function, and export NewPlugin or
// NewPluginFactory (NewPlugin wins, as in HomeAgent's loader).
func readSource(dir string) (*source, error) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var src source
	found := map[string]bool{}
	groups := map[string]bool{}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCompile, err)
		}
		n++
		if f.Name.Name != "main" {
			return nil, fmt.Errorf("%s is package %s: a HomeAgent plugin is package main", name, f.Name.Name)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				found[fd.Name.Name] = true
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && len(call.Args) == 0 {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
					if g, ok := groupOf[sel.Sel.Name]; ok {
						groups[g] = true
					}
				}
			}
			return true
		})
	}
	switch {
	case n == 0:
		return nil, fmt.Errorf("no Go files in %s", dir)
	case found["main"]:
		return nil, errors.New("the package has its own main function: it is a program, not a HomeAgent plugin; build it yourself and install the folder with its plugin.json")
	case found["NewPlugin"]:
		src.factory = "NewPlugin"
	case found["NewPluginFactory"]:
		src.factory = "NewPluginFactory"
	default:
		return nil, errors.New("the package exports neither NewPlugin nor NewPluginFactory (func(name string, config map[string]interface{}) (sdk.Plugin, error))")
	}
	for g := range groups {
		src.groups = append(src.groups, g)
	}
	slices.Sort(src.groups)
	return &src, nil
}
