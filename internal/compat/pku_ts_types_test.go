//go:build unix

package compat

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// tscOrSkip returns the TypeScript compiler and zod's declarations that
// `npm ci --prefix testdata/mcp` installs (CI does; both are in that
// lock file already). Without them the test fails in CI and is skipped
// elsewhere, saying how to get them.
func tscOrSkip(t *testing.T) (tsc, zod string) {
	t.Helper()
	root, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "mcp", "node_modules"))
	tsc = filepath.Join(root, "typescript", "bin", "tsc")
	zod = filepath.Join(root, "zod", "index.d.ts")
	for _, f := range []string{tsc, zod} {
		if _, err := os.Stat(f); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is missing on the CI machine: %v", f, err)
			}
			t.Skipf("%s is missing: run npm ci --prefix testdata/mcp", f)
		}
	}
	return tsc, zod
}

// TestPKUTypeScriptTypes type-checks, in strict mode against the SDK's
// index.d.ts, a file that uses every name of seed 001 as a PKU plugin
// writes it (testdata/pku-ts/types.ts) and the compat test plugin itself
// (checkJs), so the "compiles" column of the table holds for each row.
func TestPKUTypeScriptTypes(t *testing.T) {
	tsc, zod := tscOrSkip(t)
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	cfg := map[string]any{
		"compilerOptions": map[string]any{
			"strict": true, "noEmit": true, "module": "esnext", "moduleResolution": "bundler", "target": "es2022",
			"lib": []string{"es2022", "dom"}, "types": []string{}, "allowJs": true, "checkJs": true,
			"paths": map[string][]string{
				"@hearth-agent/plugin-sdk": {abs("../../sdk/typescript/index.d.ts")},
				"@pku-harness/sdk":         {abs("../../sdk/typescript/index.d.ts")},
				"zod":                      {zod},
			},
		},
		"files": []string{abs("testdata/pku-ts/types.ts"), abs("testdata/pku-ts/pkuall/main.mjs"),
			abs("testdata/pku-ts/pkucloud/main.mjs"), abs("testdata/pku-ts/pkuinject/main.mjs"),
			abs("testdata/pku-ts/pkuasis/index.js")},
	}
	b, _ := json.Marshal(cfg)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tsconfig.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", tsc, "-p", filepath.Join(dir, "tsconfig.json"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
}
