// api.js: the token, JSON calls to /v1 and server-sent events read with
// fetch (EventSource cannot send the Authorization header).

const KEY = 'hearth.token';

// The token lives in sessionStorage: one tab's, gone when the tab closes.
// Not localStorage: while the daemon is down, another local user could
// bind its port and serve a page on this same origin, which could read
// localStorage but not this tab's session storage.
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

// checkToken asks the server whether tok is its token: true, false when
// refused, or it throws when the server cannot be reached.
export async function checkToken(tok) {
  const resp = await fetch('/v1/health', { headers: { Authorization: 'Bearer ' + tok } });
  if (resp.status === 401) return false;
  if (!resp.ok) throw new Error('HTTP ' + resp.status);
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
  const resp = await fetch(path, init);
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
      onState('closed');
      if (stopped) return;
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(wait * 2, 15000);
    }
  })();
  return () => { stopped = true; if (ctrl) ctrl.abort(); };
}
