// Package scaffold provides Hearth's TypeScript and Python SDKs to plugins
// without a published package, and writes new plugins that run at once
// (`hearth plugin new`).
package scaffold

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	pysdk "github.com/hearth-agent/hearth/sdk/python"
	tssdk "github.com/hearth-agent/hearth/sdk/typescript"
)

// resolveHook maps the SDK's package name (and zod) to the provided copy
// when node's own resolution does not find them, so a plugin's own
// node_modules still wins.
const resolveHook = `// Written by Hearth: resolves the Hearth plugin SDK for child plugins.
const provided = {
  '@hearth-agent/plugin-sdk': new URL('./node_modules/@hearth-agent/plugin-sdk/index.js', import.meta.url).href,
  '@hearth-agent/plugin-sdk/run.js': new URL('./node_modules/@hearth-agent/plugin-sdk/run.js', import.meta.url).href,
  // PKU harness plugins import the SDK by PKU's name: it is this one.
  '@pku-harness/sdk': new URL('./node_modules/@hearth-agent/plugin-sdk/index.js', import.meta.url).href,
  zod: new URL('./node_modules/zod/index.js', import.meta.url).href,
};
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (err) {
    if (err?.code === 'ERR_MODULE_NOT_FOUND' && Object.hasOwn(provided, specifier)) {
      return { url: provided[specifier], shortCircuit: true };
    }
    throw err;
  }
}
`

const registerHook = `// Written by Hearth: node --import this file to resolve the Hearth plugin SDK.
import { register } from 'node:module';
register('./resolve.mjs', import.meta.url);
`

var (
	provideMu sync.Mutex
	provided  = map[string]string{} // data dir -> root
)

// Version names the embedded SDKs' content: the folder under
// <data dir>/sdk that Provide writes.
func Version() string {
	h := sha256.New()
	fs.WalkDir(tssdk.Files, ".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := tssdk.Files.ReadFile(path)
			fmt.Fprintf(h, "%s %d\n", path, len(b))
			h.Write(b)
		}
		return nil
	})
	for _, name := range slices.Sorted(maps.Keys(pysdk.Files)) {
		fmt.Fprintf(h, "python/%s %d\n", name, len(pysdk.Files[name]))
		h.Write(pysdk.Files[name])
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// Provide writes the SDKs under <dataDir>/sdk/<Version()> once (a later
// call, or a later Hearth with the same SDKs, finds them there) and
// returns that folder.
func Provide(dataDir string) (string, error) {
	provideMu.Lock()
	defer provideMu.Unlock()
	if root, ok := provided[dataDir]; ok {
		return root, nil
	}
	root := filepath.Join(dataDir, "sdk", Version())
	if _, err := os.Stat(filepath.Join(root, "hook.mjs")); err != nil {
		if err := os.MkdirAll(filepath.Dir(root), 0o700); err != nil {
			return "", fmt.Errorf("providing the plugin SDKs: %w", err)
		}
		tmp, err := os.MkdirTemp(filepath.Dir(root), ".new-")
		if err != nil {
			return "", fmt.Errorf("providing the plugin SDKs: %w", err)
		}
		if err := writeSDKs(tmp); err != nil {
			os.RemoveAll(tmp)
			return "", err
		}
		if err := os.Rename(tmp, root); err != nil {
			os.RemoveAll(tmp)
			if _, serr := os.Stat(filepath.Join(root, "hook.mjs")); serr != nil {
				return "", fmt.Errorf("providing the plugin SDKs: %w", err)
			} // another Hearth wrote it first
		}
	}
	provided[dataDir] = root
	return root, nil
}

// writeSDKs writes node_modules (the TypeScript SDK and zod), the resolve
// hook and the Python SDK (python/hearth_plugin.py and its hearth_pku.py)
// into root.
func writeSDKs(root string) error {
	if err := writeNodeModules(filepath.Join(root, "node_modules"), private); err != nil {
		return err
	}
	files := map[string]string{"resolve.mjs": resolveHook, "hook.mjs": registerHook}
	for name, body := range pysdk.Files {
		files[filepath.Join("python", name)] = string(body)
	}
	for name, body := range files {
		if err := writeFile(filepath.Join(root, name), []byte(body), private); err != nil {
			return err
		}
	}
	return nil
}

// writeNodeModules writes the TypeScript SDK as
// dir/@hearth-agent/plugin-sdk and zod as dir/zod, so that node resolves
// both from any file below dir's parent.
func writeNodeModules(dir string, p perm) error {
	return fs.WalkDir(tssdk.Files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(tssdk.PackageName), filepath.FromSlash(path))
		if rel, ok := strings.CutPrefix(path, "bundled/"); ok {
			if rel == "README.md" {
				return nil
			}
			dst = filepath.Join(dir, filepath.FromSlash(rel))
		}
		b, err := tssdk.Files.ReadFile(path)
		if err != nil {
			return err
		}
		return writeFile(dst, b, p)
	})
}

// perm is the modes of the folders and files written.
type perm struct{ dir, file os.FileMode }

var (
	private = perm{0o700, 0o600} // in the data folder, like the rest of it
	public  = perm{0o755, 0o644} // a plugin's source folder
)

func writeFile(path string, b []byte, p perm) error {
	if err := os.MkdirAll(filepath.Dir(path), p.dir); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.WriteFile(path, b, p.file); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Env is what a child plugin's environment gets so that
// `import ... from '@hearth-agent/plugin-sdk'` (node) and
// `import hearth_plugin` (python3) resolve to the SDKs under root.
func Env(root string) []string {
	p := filepath.ToSlash(filepath.Join(root, "hook.mjs"))
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/... on Windows
	}
	hook := url.URL{Scheme: "file", Path: p}
	return []string{
		"NODE_OPTIONS=--import=" + hook.String(),
		"NODE_PATH=" + filepath.Join(root, "node_modules"),
		"PYTHONPATH=" + filepath.Join(root, "python"),
	}
}
