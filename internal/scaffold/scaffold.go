package scaffold

import (
	"bufio"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/hearth-agent/hearth/internal/names"
	pysdk "github.com/hearth-agent/hearth/sdk/python"
)

//go:embed templates
var templates embed.FS

// HearthModule is the Go module path of Hearth, which Go plugins require.
const HearthModule = "github.com/hearth-agent/hearth"

// Langs are the languages New writes, as --lang names them.
var Langs = []string{"go", "ts", "python"}

// Options says what New writes.
type Options struct {
	ID   string // the plugin id, also its name and folder name by default
	Lang string // one of Langs; "typescript", "js" and "py" are accepted too
	Dir  string // the folder to create; it must not exist or be empty
	// HearthSrc is a Hearth checkout, for a Go plugin's replace directive
	// and go.sum; see FindHearthSrc.
	HearthSrc string
}

// NormLang maps the accepted spellings of a language to one of Langs.
func NormLang(lang string) (string, error) {
	switch strings.ToLower(lang) {
	case "go", "golang":
		return "go", nil
	case "ts", "typescript", "js", "javascript", "node":
		return "ts", nil
	case "python", "py", "python3":
		return "python", nil
	}
	return "", fmt.Errorf("unknown language %q: choose one of %s", lang, strings.Join(Langs, ", "))
}

// New writes a plugin that runs at once: plugin.json, a tool named hello,
// a test and a README; for TypeScript a copy of the SDK in node_modules,
// for Python a copy of hearth_plugin.py, both for the tests (Hearth
// provides the SDKs to the plugins it runs). It returns the files written,
// relative to o.Dir.
func New(o Options) ([]string, error) {
	if !names.ValidID(o.ID) {
		return nil, fmt.Errorf("plugin id %q must be %s", o.ID, names.IDRule)
	}
	if names.IsReserved(o.ID) {
		return nil, fmt.Errorf("plugin id %q is reserved for Hearth itself and would never load; pick another (reserved: %s)",
			o.ID, strings.Join(names.Reserved(), ", "))
	}
	lang, err := NormLang(o.Lang)
	if err != nil {
		return nil, err
	}
	if entries, err := os.ReadDir(o.Dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s exists and is not empty", o.Dir)
	}
	data := map[string]string{"ID": o.ID}
	if lang == "go" {
		if o.HearthSrc == "" {
			return nil, errors.New("a Go plugin needs a Hearth checkout for its go.mod replace (the module is not on the Go proxy): pass --hearth-src DIR, e.g. after `git clone` of Hearth")
		}
		src, err := filepath.Abs(o.HearthSrc)
		if err != nil {
			return nil, err
		}
		goVersion, err := hearthGoVersion(src)
		if err != nil {
			return nil, err
		}
		reqs, err := hearthRequires(src)
		if err != nil {
			return nil, err
		}
		data["HearthSrc"], data["GoVersion"], data["Requires"] = src, goVersion, reqs
		data["ModHearthSrc"] = modQuote(src)
	}
	var written []string
	root := path.Join("templates", lang)
	err = fs.WalkDir(templates, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := templates.ReadFile(p)
		if err != nil {
			return err
		}
		out, err := expand(body, data)
		if err != nil {
			return fmt.Errorf("template %s: %w", p, err)
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(p, root+"/"), ".tmpl")
		if rel == "gitignore" {
			rel = ".gitignore" // embed leaves out dot files
		}
		written = append(written, rel)
		return writeFile(filepath.Join(o.Dir, filepath.FromSlash(rel)), out, public)
	})
	if err != nil {
		return nil, err
	}
	switch lang {
	case "ts":
		if err := writeNodeModules(filepath.Join(o.Dir, "node_modules"), public); err != nil {
			return nil, err
		}
		written = append(written, "node_modules/")
	case "python":
		for _, name := range slices.Sorted(maps.Keys(pysdk.Files)) {
			if err := writeFile(filepath.Join(o.Dir, name), pysdk.Files[name], public); err != nil {
				return nil, err
			}
			written = append(written, name)
		}
	case "go":
		sum, err := os.ReadFile(filepath.Join(data["HearthSrc"], "go.sum"))
		if err != nil {
			return nil, fmt.Errorf("copying the Hearth checkout's go.sum: %w", err)
		}
		if err := writeFile(filepath.Join(o.Dir, "go.sum"), sum, public); err != nil {
			return nil, err
		}
		written = append(written, "go.sum")
	}
	return written, nil
}

// hearthGoVersion checks that dir is a Hearth checkout and returns the go
// version its go.mod names.
func hearthGoVersion(dir string) (string, error) {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("%s is not a Hearth checkout: %w", dir, err)
	}
	defer f.Close()
	module, goVersion := "", ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 2 && fields[0] == "module" {
			module = fields[1]
		}
		if len(fields) == 2 && fields[0] == "go" {
			goVersion = fields[1]
		}
	}
	if module != HearthModule || goVersion == "" {
		return "", fmt.Errorf("%s is not a Hearth checkout (its go.mod is not module %s)", dir, HearthModule)
	}
	return goVersion, nil
}

// hearthRequires lists the requirements of the checkout's go.mod as
// indirect requirements of a plugin's go.mod, so the plugin builds with
// -mod=readonly and without the network (its go.sum is the checkout's).
func hearthRequires(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("reading the Hearth checkout's go.mod: %w", err)
	}
	var out strings.Builder
	inBlock := false
	for line := range strings.Lines(string(b)) {
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
		case inBlock && fields[0] == ")":
			inBlock = false
		case inBlock && len(fields) >= 2:
			fmt.Fprintf(&out, "\t%s %s // indirect\n", fields[0], fields[1])
		case fields[0] == "require" && len(fields) >= 2 && fields[1] == "(":
			inBlock = true
		case fields[0] == "require" && len(fields) >= 3:
			fmt.Fprintf(&out, "\t%s %s // indirect\n", fields[1], fields[2])
		}
	}
	return out.String(), nil
}

// modQuote returns path as a go.mod line may hold it: as it is, or
// Go-quoted when a space, a quote, a bracket, a comma or a character that
// does not print would end or change the token (go.mod reads quoted
// strings with Go's rules).
func modQuote(path string) string {
	for _, r := range path {
		if strings.ContainsRune(" \"'`()[]{},", r) || !unicode.IsPrint(r) {
			return strconv.Quote(path)
		}
	}
	return path
}

// BuiltFrom returns the folder this binary was built from, as the
// compiler recorded it (empty when built with -trimpath), so that a
// `go install`ed hearth still finds its checkout.
func BuiltFrom() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(file))) // internal/scaffold/scaffold.go
}

// FindHearthSrc returns the first Hearth checkout found at or above any of
// dirs, or "". A folder that another user may write (see CheckOwned),
// such as /tmp above a `go run` binary, is passed over: its go.mod may
// name Hearth's module, but Hearth builds and runs the code it finds.
func FindHearthSrc(dirs ...string) string {
	for _, d := range dirs {
		if d == "" {
			continue
		}
		d, err := filepath.Abs(d)
		if err != nil {
			continue
		}
		for {
			if _, err := hearthGoVersion(d); err == nil && CheckOwned(d, filepath.Join(d, "go.mod")) == nil {
				return d
			}
			up := filepath.Dir(d)
			if up == d {
				break
			}
			d = up
		}
	}
	return ""
}
