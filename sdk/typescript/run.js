// Runs a PKU harness plugin as it is written: a module that exports a
// definePlugin object and never calls serve (the PKU host imports it).
//
//   "command": ["node", "--import", "@hearth-agent/plugin-sdk/run.js", "dist/index.js"]
//
// Loaded before the main module, this imports it (node then finds it
// evaluated), picks the one exported plugin definition and serves it. A
// module that calls serve itself is left alone. `@pku-harness/sdk`
// resolves to this SDK in every child plugin Hearth runs.
import { pathToFileURL } from 'node:url';
import { served, serve } from './index.js';

/** The exported values that look like a PluginDef: id, name, version and tools. */
export function exportedPlugins(mod) {
  const seen = new Set();
  for (const v of [mod?.default, ...Object.values(mod ?? {})]) {
    if (v && typeof v === 'object' && typeof v.id === 'string' && typeof v.name === 'string' &&
        typeof v.version === 'string' && v.tools && typeof v.tools === 'object') seen.add(v);
  }
  return [...seen];
}

const main = process.argv[1];
if (main) {
  const mod = await import(pathToFileURL(main).href);
  if (!served()) {
    const found = exportedPlugins(mod);
    if (found.length !== 1) {
      process.stderr.write(JSON.stringify({ level: 'ERROR', msg: `${main} exports ${found.length} plugin definitions; want exactly one (export const plugin = definePlugin({...}))` }) + '\n');
      process.exit(1);
    }
    serve(found[0]);
  }
}
