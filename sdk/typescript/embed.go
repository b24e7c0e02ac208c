// Package tssdk carries the TypeScript SDK's runtime files, with the zod
// it imports, so that Hearth can provide them to child plugins and to
// scaffolded plugins without npm (see internal/scaffold).
package tssdk

import "embed"

// Files holds package.json, index.js and index.d.ts of the SDK, and
// bundled/zod: the runtime JavaScript of its one dependency.
//
//go:embed package.json index.js pku.js run.js index.d.ts README.md all:bundled
var Files embed.FS

// PackageName is the name plugins import the SDK by.
const PackageName = "@hearth-agent/plugin-sdk"
