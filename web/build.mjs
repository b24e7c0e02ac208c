// build.mjs bundles src/ into dist/: one hashed JavaScript file and one
// hashed CSS file, index.html pointing at them, and the icon. The output
// is committed (web/embed.go embeds it), so `go run` needs no Node;
// TestBuildUpToDate (web/build_test.go) rebuilds into a temporary folder
// and fails when dist/ differs.
//
//   node build.mjs [out-dir]   (default: dist)
import * as esbuild from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] || join(here, 'dist');

const common = { bundle: true, minify: true, write: false, legalComments: 'none', logLevel: 'warning' };
const js = await esbuild.build({
  ...common,
  entryPoints: [join(here, 'src/main.js')],
  format: 'esm',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  outfile: 'app.js',
});
const css = await esbuild.build({ ...common, entryPoints: [join(here, 'src/style.css')], outfile: 'app.css' });

const hashed = (name, ext, text) => `${name}-${createHash('sha256').update(text).digest('hex').slice(0, 10)}.${ext}`;
const jsText = js.outputFiles[0].text;
const cssText = css.outputFiles[0].text;
const jsName = hashed('app', 'js', jsText);
const cssName = hashed('app', 'css', cssText);

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });
writeFileSync(join(out, 'assets', jsName), jsText);
writeFileSync(join(out, 'assets', cssName), cssText);
writeFileSync(join(out, 'index.html'),
  readFileSync(join(here, 'index.html'), 'utf8').replace('{{JS}}', jsName).replace('{{CSS}}', cssName));
copyFileSync(join(here, 'favicon.svg'), join(out, 'favicon.svg'));
console.log(`${out}: assets/${jsName} ${jsText.length} B, assets/${cssName} ${cssText.length} B`);
