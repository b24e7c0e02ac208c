// lib.mjs: what the browser test scripts share: launching Debian's
// Chromium headless through playwright-core, opening the UI with the
// token, screenshots, and failing loudly.
//
// Each script is run by a Go test (internal/server/ui_browser_test.go) as
//   node web/test/<name>.mjs URL TOKEN
// with HEARTH_SCREENSHOTS naming the folder for screenshots.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const [url, token] = process.argv.slice(2);
if (!url || !token) {
  console.error('usage: node <script>.mjs URL TOKEN');
  process.exit(2);
}
const shots = process.env.HEARTH_SCREENSHOTS || '';

// run launches the browser, gives body a page (and the context), and
// exits non-zero when body throws.
export async function run(body, { locale = 'en-US', viewport = { width: 1280, height: 800 } } = {}) {
  const profile = mkdtempSync(join(tmpdir(), 'hearth-chromium-'));
  // A fresh profile each run (playwright passes it as --user-data-dir).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.HEARTH_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    locale, viewport,
  });
  let code = 0;
  let page = null;
  try {
    page = context.pages()[0] || await context.newPage();
    page.setDefaultTimeout(Number(process.env.HEARTH_UI_TIMEOUT_MS || 30000));
    const problems = [];
    page.on('pageerror', (e) => problems.push('page error: ' + e.message));
    page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
    await body(page, context);
    const bad = problems.filter((p) => !/Failed to load resource: the server responded with a status of (401|404|409|422)/.test(p));
    if (bad.length) throw new Error(bad.join('\n'));
  } catch (e) {
    console.error(e && e.stack ? e.stack : e);
    code = 1;
    if (page) await shot(page, 'failed-' + process.argv[1].replace(/^.*\//, '').replace(/\.mjs$/, '')).catch(() => {});
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
  process.exit(code);
}

// open loads path with the token in the fragment, as `hearth serve`
// prints it.
export async function open(page, path = '/') {
  await page.goto(url + path + '#token=' + encodeURIComponent(token));
}

// shot saves a full-page screenshot as <name>.png when screenshots are on.
export async function shot(page, name) {
  if (!shots) return;
  await page.screenshot({ path: join(shots, name + '.png'), animations: 'disabled' });
  console.log('screenshot', join(shots, name + '.png'));
}

// api calls the API from the test (not the page), with the token.
export async function api(method, path, body) {
  const resp = await fetch(url + path, {
    method, headers: { Authorization: 'Bearer ' + token, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await resp.text();
  if (!resp.ok) throw new Error(`${method} ${path}: ${resp.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

// assert throws msg when ok is false.
export function assert(ok, msg) { if (!ok) throw new Error(msg); }
