// api.js: the token, JSON calls to /v1 and server-sent events read with
// fetch (EventSource cannot send the Authorization header).

const KEY = 'hearth.token';

// The token lives in sessionStorage: one tab's, gone when the tab closes.
// Not localStorage: while the daemon is down, another local user could
// bind its port and serve a page on this same origin, which could read
// localStorage from any tab. sessionStorage narrows that but does not stop
// it: if this tab is reloaded (or navigated) while a squatter holds the
// port, the squatter's page runs in this tab and reads the token. What
// this code can do is never send the token to a server that has not
// proved it knows it: see proveServer.
const box = sessionStorage;
try { localStorage.removeItem(KEY); } catch { /* an older UI kept it there */ }

// takeToken moves a token from the address bar's fragment (#token=...) into
// sessionStorage and removes it from the address bar and the history.
export function takeToken() {
  const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (m) {
    box.setItem(KEY, decodeURIComponent(m[1]));
    history.replaceState(null, '', location.pathname + location.search);
  }
  return token();
}

export function token() { return box.getItem(KEY) || ''; }
export function setToken(t) { if (t) box.setItem(KEY, t); else box.removeItem(KEY); }

// Proving the server. After a failed request or a broken event stream
// the daemon may have stopped, and another local user may have taken its
// port. Before the token is sent again, GET /v1/hello?nonce=N (public, no
// token) must answer proof = hex(HMAC-SHA256(token, "hearth-daemon-proof:"
// + N)) for a fresh random N: only a server that knows the token can. A
// wrong or missing proof stops every request (UntrustedError) and tells
// the onUntrusted listeners; without crypto.subtle (plain HTTP on a LAN
// address) nothing can be proved and the token page is shown instead.
const PROOF_PREFIX = 'hearth-daemon-proof:';

// UntrustedError is a request not made: the server did not prove it knows
// the token (reason 'proof'), or cannot be checked ('insecure').
export class UntrustedError extends Error {
  constructor(reason) { super(reason === 'insecure' ? 'cannot check the server over plain HTTP' : 'the server did not prove it knows the token'); this.reason = reason; }
}

const hex = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');

// newNonce is 32 random bytes in hex.
export function newNonce() { return hex(crypto.getRandomValues(new Uint8Array(32))); }

// proofFor is the proof a server that knows tok gives for nonce.
export async function proofFor(tok, nonce) {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', enc.encode(tok), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return hex(await crypto.subtle.sign('HMAC', key, enc.encode(PROOF_PREFIX + nonce)));
}

// sameHex compares two strings in constant time: it looks at every
// character of the longer one whatever it finds.
export function sameHex(a, b) {
  a = String(a); b = String(b);
  let diff = a.length ^ b.length;
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0);
  return diff === 0;
}

// hello asks the server at this address to prove it knows tok: true or
// false, or it throws when the server cannot be reached.
async function hello(tok) {
  const nonce = newNonce();
  const resp = await fetch('/v1/hello?nonce=' + nonce, { cache: 'no-store' });
  let body = null;
  try { body = await resp.json(); } catch { /* no proof */ }
  const want = await proofFor(tok, nonce);
  return resp.ok && !!body && typeof body.proof === 'string' && sameHex(body.proof, want);
}

let suspect = false; // a request failed since the server last proved itself
let untrusted = null; // the UntrustedError that stopped everything, if any
let proving = null;
const untrustedListeners = new Set();
// onUntrusted calls f(reason) when the server fails the proof ('proof')
// or cannot be checked ('insecure'), and f(null) once it has proved
// itself again.
export function onUntrusted(f) { untrustedListeners.add(f); return () => untrustedListeners.delete(f); }
function setUntrusted(e) {
  untrusted = e;
  untrustedListeners.forEach((f) => f(e ? e.reason : null));
}

// failed notes a failed request or a broken stream: the next request
// with the token waits for the proof.
function failed() { suspect = true; }

// proveServer resolves when the token may be sent: nothing has failed,
// or the server has just proved it knows the token. It throws
// UntrustedError when it must not be sent, or the network error when the
// server cannot be reached yet (still suspect: the next request asks
// again).
export function proveServer() {
  if (untrusted) return Promise.reject(untrusted);
  if (!suspect) return Promise.resolve();
  if (!proving) {
    proving = (async () => {
      if (!globalThis.crypto || !crypto.subtle) throw new UntrustedError('insecure');
      if (!await hello(token())) throw new UntrustedError('proof');
      suspect = false;
    })().catch((e) => {
      if (e instanceof UntrustedError) setUntrusted(e);
      throw e;
    }).finally(() => { proving = null; });
  }
  return proving;
}

// recheck asks the server for its proof again after onUntrusted stopped
// everything (the "check again" button): true when it proved itself.
export async function recheck() {
  untrusted = null;
  suspect = true;
  try { await proveServer(); } catch { return false; }
  setUntrusted(null);
  return true;
}

// checkToken asks the server whether tok is its token: true, false when
// refused, or it throws when the server cannot be reached. Where it can,
// it first has the server prove it knows tok, so a wrong server never
// sees it.
export async function checkToken(tok) {
  if (globalThis.crypto && crypto.subtle) {
    if (!await hello(tok)) return false;
  }
  const resp = await fetch('/v1/health', { headers: { Authorization: 'Bearer ' + tok } });
  if (resp.status === 401) return false;
  if (!resp.ok) throw new Error('HTTP ' + resp.status);
  suspect = false;
  if (untrusted) setUntrusted(null);
  return true;
}

// ApiError is a failed call: status, the server's message and, for 422,
// the per-field messages.
export class ApiError extends Error {
  constructor(status, body) {
    const e = (body && body.error) || {};
    super(e.message || `HTTP ${status}`);
    this.status = status;
    this.code = e.code || '';
    this.fields = (body && body.fields) || e.fields || null;
  }
}

const listeners = new Set();
// onUnauthorized calls f whenever the server refuses the token.
export function onUnauthorized(f) { listeners.add(f); return () => listeners.delete(f); }

// call sends one request to the API and returns the decoded answer.
export async function call(method, path, body) {
  const headers = { Authorization: 'Bearer ' + token() };
  const init = { method, headers };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  await proveServer();
  let resp;
  try { resp = await fetch(path, init); } catch (e) { failed(); throw e; }
  if (resp.status >= 502 && resp.status <= 504) failed(); // a proxy with no daemon behind it
  const text = await resp.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = { error: { message: text.slice(0, 200) } }; }
  }
  if (resp.status === 401) listeners.forEach((f) => f());
  if (!resp.ok) throw new ApiError(resp.status, data);
  return data;
}

export const get = (p) => call('GET', p);
export const post = (p, b) => call('POST', p, b === undefined ? {} : b);
export const put = (p, b) => call('PUT', p, b);
export const patch = (p, b) => call('PATCH', p, b);
export const del = (p) => call('DELETE', p);

// untrustedEnds resolves once the server has proved itself again.
function untrustedEnds() {
  return new Promise((resolve) => {
    const off = onUntrusted((reason) => { if (!reason) { off(); resolve(); } });
  });
}

// parseSSE splits a server-sent event stream's text into events; it
// returns the events and the unfinished rest.
export function parseSSE(buf) {
  const out = [];
  // A chunk may end between the \r and \n of one line break: keep that
  // \r for the next chunk.
  const held = buf.endsWith('\r') ? '\r' : '';
  if (held) buf = buf.slice(0, -1);
  buf = buf.replace(/\r\n?/g, '\n');
  let i;
  while ((i = buf.indexOf('\n\n')) >= 0) {
    const block = buf.slice(0, i);
    buf = buf.slice(i + 2);
    const ev = { event: 'message', data: '', id: '' };
    const data = [];
    for (const line of block.split('\n')) {
      if (!line || line[0] === ':') continue;
      const c = line.indexOf(':');
      const field = c < 0 ? line : line.slice(0, c);
      let value = c < 0 ? '' : line.slice(c + 1);
      if (value[0] === ' ') value = value.slice(1);
      if (field === 'event') ev.event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id') ev.id = value;
    }
    if (!data.length) continue;
    ev.data = data.join('\n');
    try { ev.json = JSON.parse(ev.data); } catch { ev.json = null; }
    out.push(ev);
  }
  return [out, buf + held];
}

// stream reads the event stream at path and calls onEvent for each event
// until the returned stop function is called; it reconnects after a
// failure, waiting longer each time (up to 15 s), and calls onState with
// 'open' or 'closed'.
export function stream(path, onEvent, onState = () => {}) {
  let stopped = false;
  let ctrl = null;
  let wait = 500;
  (async () => {
    while (!stopped) {
      ctrl = new AbortController();
      try {
        try {
          await proveServer();
        } catch (e) {
          if (e instanceof UntrustedError) { onState('closed'); await untrustedEnds(); continue; }
          throw e;
        }
        if (stopped) return;
        const resp = await fetch(path, {
          headers: { Authorization: 'Bearer ' + token(), Accept: 'text/event-stream' },
          signal: ctrl.signal,
        });
        if (resp.status === 401) { listeners.forEach((f) => f()); return; }
        if (!resp.ok || !resp.body) throw new Error('HTTP ' + resp.status);
        onState('open');
        wait = 500;
        const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          let evs;
          [evs, buf] = parseSSE(buf + value);
          evs.forEach(onEvent);
        }
      } catch (e) {
        if (stopped) return;
      }
      failed(); // the stream broke: prove the server before reconnecting
      onState('closed');
      if (stopped) return;
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(wait * 2, 15000);
    }
  })();
  return () => { stopped = true; if (ctrl) ctrl.abort(); };
}
