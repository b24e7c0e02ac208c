package knowledge

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/hearth-agent/hearth/internal/datadir"
	"github.com/hearth-agent/hearth/internal/scope"
)

// Where entries live in the folder. The owner's entries in Global (hand-
// written files, and what the owner adds from the CLI or the web UI) are
// the folder's visible tree: <dir>/<name>.md, a name being a slash path
// ("recipes/红烧肉"). Everything else lives under hidden folders that the
// owner's tree leaves out, so a plugin's entry is never mistaken for the
// owner's:
//
//	<dir>/.plugins/<writer>/<scope>/<name>.md  what a plugin added
//	<dir>/.scopes/<scope>/<name>.md            what the owner added to a scope other than global
//
// <writer> and <scope> are one file name each (datadir.FileName, the rule
// of the text memory's scope folders too).
// Any other hidden file or folder (.git, an editor's) is ignored.
const (
	pluginsDir = ".plugins"
	scopesDir  = ".scopes"
)

// Ext is the extension of the knowledge files Hearth writes; files ending
// in TextExt are read as entries too.
const Ext = ".md"

// TextExt is the extension of plain-text entries.
const TextExt = ".txt"

// exts are the extensions of entries, the preferred first.
var exts = [...]string{Ext, TextExt}

// maxPart is the longest file name, in bytes, an entry's path may have in
// one component (most file systems allow 255; the extension and the
// temporary file's prefix need room).
const maxPart = 240

// Key names one entry: the same name from two writers or in two scopes is
// two entries.
type Key struct {
	// Scope is the entry's scope.
	Scope scope.Scope `json:"scope"`
	// Writer is the plugin that wrote it; "" for the owner (hand-written
	// files, the CLI, the web UI).
	Writer string `json:"writer"`
	// Name is the entry's name: a slash path without extension.
	Name string `json:"name"`
}

// CheckName refuses, wrapping ErrName, a name that is not a relative
// slash path of plain file names: empty, absolute, with a backslash or
// NUL, with an empty, hidden, "." or ".." part, or too long a part.
func CheckName(name string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w: %q (%s)", ErrName, name, why)
	}
	switch {
	case strings.TrimSpace(name) == "":
		return bad("empty")
	case !utf8.ValidString(name):
		return bad("not UTF-8")
	case strings.ContainsAny(name, "\\\x00\n\r"):
		return bad("a backslash or a control character")
	case strings.HasPrefix(name, "/"):
		return bad("absolute")
	}
	for part := range strings.SplitSeq(name, "/") {
		switch {
		case part == "":
			return bad("an empty folder name")
		case strings.HasPrefix(part, "."):
			return bad("a hidden part, . or ..")
		case len(part) > maxPart:
			return bad("a part over 240 bytes")
		case strings.TrimSpace(part) != part:
			return bad("a part beginning or ending with a space")
		}
	}
	return nil
}

// dirOf returns the folder, relative and slash-separated, holding the
// entries of writer in sc ("" for the visible tree).
func dirOf(sc scope.Scope, writer string) string {
	switch {
	case writer != "":
		return pluginsDir + "/" + datadir.FileName(writer) + "/" + datadir.FileName(string(sc))
	case sc != scope.Global:
		return scopesDir + "/" + datadir.FileName(string(sc))
	}
	return ""
}

// relOf returns the file of key with extension ext, relative to the folder.
func relOf(key Key, ext string) (string, error) {
	d := dirOf(key.Scope, key.Writer)
	if len(path.Base(d)) > maxPart {
		return "", fmt.Errorf("%w: scope or writer too long to be a folder name", ErrName)
	}
	if d == "" {
		return key.Name + ext, nil
	}
	return d + "/" + key.Name + ext, nil
}

// locate returns the entry the file rel (relative, slash-separated) is,
// and false for a file that is no entry: hidden, of another extension,
// under an unknown hidden folder, or named with a scope that is not valid.
func locate(rel string) (Key, bool) {
	ext := path.Ext(rel)
	if ext != Ext && ext != TextExt {
		return Key{}, false
	}
	parts := strings.Split(strings.TrimSuffix(rel, ext), "/")
	key := Key{Scope: scope.Global}
	switch parts[0] {
	case pluginsDir:
		if len(parts) < 4 {
			return Key{}, false
		}
		w, ok := datadir.ParseFileName(parts[1])
		if !ok || w == "" {
			return Key{}, false
		}
		s, ok := datadir.ParseFileName(parts[2])
		if !ok || !scope.Scope(s).Valid() {
			return Key{}, false
		}
		key.Writer, key.Scope, parts = w, scope.Scope(s), parts[3:]
	case scopesDir:
		if len(parts) < 3 {
			return Key{}, false
		}
		s, ok := datadir.ParseFileName(parts[1])
		if !ok || !scope.Scope(s).Valid() || scope.Scope(s) == scope.Global {
			return Key{}, false
		}
		key.Scope, parts = scope.Scope(s), parts[2:]
	}
	key.Name = strings.Join(parts, "/")
	if CheckName(key.Name) != nil {
		return Key{}, false
	}
	return key, true
}

// skipDir reports whether the folder rel (relative, slash-separated; ""
// for the folder itself) holds no entries: hidden, except the two
// folders of the layout and what is inside them.
func skipDir(rel string) bool {
	if rel == "" {
		return false
	}
	parts := strings.Split(rel, "/")
	start := 0
	switch parts[0] {
	case pluginsDir:
		start = 3
	case scopesDir:
		start = 2
	}
	for i, p := range parts {
		if i >= start && strings.HasPrefix(p, ".") {
			return true
		}
		if i > 0 && i < start && (strings.HasPrefix(p, ".") || p == "") {
			return true
		}
	}
	return false
}
