// store.js: what every page shares: the route, the global event stream
// (GET /v1/events) and the pending approvals it keeps up to date.
import { signal } from './state.js';
import { get, stream, onUnauthorized } from './api.js';

// route is the current path.
export const route = signal(location.pathname);

// navigate goes to path without reloading the page.
export function navigate(path) {
  if (path === location.pathname) return;
  history.pushState(null, '', path);
  route.value = path;
}
addEventListener('popstate', () => { route.value = location.pathname; });

// approvals are the pending approvals, from every channel.
export const approvals = signal([]);
// online is whether the global event stream is connected.
export const online = signal(true);

const handlers = new Set();
// onEvent calls f with every event of every session; it returns the
// function that stops it.
export function onEvent(f) { handlers.add(f); return () => handlers.delete(f); }

export async function loadApprovals() {
  try {
    const r = await get('/v1/approvals');
    approvals.value = r.approvals || [];
  } catch { /* the indicator stays as it was */ }
}

let stop = null;
// A refused token ends the stream; the next connect, with a new token,
// opens it again.
onUnauthorized(() => { if (stop) stop(); stop = null; });

// connect opens the global event stream (once).
export function connect() {
  if (stop) return;
  loadApprovals();
  stop = stream('/v1/events', (ev) => {
    const d = ev.json || {};
    if (ev.event === 'approval.requested' && d.approval) {
      if (!approvals.value.some((a) => a.id === d.approval.id)) approvals.value = [...approvals.value, d.approval];
    } else if (ev.event === 'approval.decided') {
      approvals.value = approvals.value.filter((a) => a.id !== d.id);
    }
    handlers.forEach((f) => f(ev.event, d));
  }, (s) => {
    online.value = s === 'open';
    if (s === 'open') loadApprovals();
  });
}
