// Package web is Hearth's web UI, built from src/ by build.mjs into dist/
// (committed) and embedded here, so the binary serves it without Node.
// docs/web-ui.md says how to change it.
package web

import (
	"embed"
	"io/fs"
)

//go:embed dist
var dist embed.FS

// FS returns the built UI: index.html, favicon.svg and assets/ with the
// content-hashed JavaScript and CSS.
func FS() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // cannot happen: dist is embedded
	}
	return sub
}
