package hagosrc

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ErrNotPureGo means the source folder holds what a pure Go build does
// not need and what could read files outside the folder while building:
// C, C++ or assembly sources, headers, prebuilt objects (.syso), cgo
// (import "C") or a symbolic link. Build runs with CGO_ENABLED=0 as well;
// the check makes the refusal say why instead of a compiler's message.
var ErrNotPureGo = errors.New("Hearth builds HomeAgent source folders as pure Go (no cgo, no assembly)")

// foreignExts are the file kinds go build hands to a C compiler, an
// assembler or the linker. An assembler's .incbin or a C #include can
// name any file the user can read.
var foreignExts = []string{".c", ".cc", ".cpp", ".cxx", ".c++", ".h", ".hh", ".hpp", ".hxx",
	".m", ".f", ".for", ".f90", ".s", ".S", ".sx", ".swig", ".swigcxx", ".syso"}

// checkPureGo walks the source folder (not hidden folders, not
// HomeAgent's dist output, which go build ignores or never sees) and
// refuses what a pure Go build does not take.
func checkPureGo(dir string) error {
	fset := token.NewFileSet()
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		name := d.Name()
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || rel == "dist") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%w: %s is a symbolic link, which could make the build read a file outside the folder; replace it with the file", ErrNotPureGo, rel)
		}
		if slices.Contains(foreignExts, filepath.Ext(name)) {
			return fmt.Errorf("%w: %s is a C, C++ or assembly file (or a prebuilt object); HomeAgent plugins are pure Go, so remove it or build the plugin yourself and install the folder with its plugin.json", ErrNotPureGo, rel)
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrCompile, err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "C" {
				return fmt.Errorf("%w: %s uses cgo (import \"C\"); remove it or build the plugin yourself and install the folder with its plugin.json", ErrNotPureGo, rel)
			}
		}
		return nil
	})
}
