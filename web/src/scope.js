// scope.js: reading a memory entry's scope, as the server writes it
// (internal/scope): "global", "owner", "user:<channel>/<id>" or
// "chat:<channel>/<chat>", a group's chat being "group:<id>". No DOM
// here: test/scope.test.mjs runs it under node.

// parseScope returns what scope s names: { kind, channel, id } with kind
// 'global' (also for ""), 'owner', 'user' (a person), 'group' (a group
// chat, id without "group:"), 'chat' (another chat), or 'other' (a scope
// this UI does not know, id the whole text).
export function parseScope(s) {
  if (!s || s === 'global') return { kind: 'global', channel: '', id: '' };
  if (s === 'owner') return { kind: 'owner', channel: '', id: '' };
  const m = /^(user|chat):([^/]+)\/(.+)$/s.exec(s);
  if (!m) return { kind: 'other', channel: '', id: s };
  const [, kind, channel, id] = m;
  if (kind === 'chat' && id.startsWith('group:') && id.length > 6) return { kind: 'group', channel, id: id.slice(6) };
  return { kind, channel, id };
}

// scopeOrder compares two scopes for a menu: global, owner, then the
// rest in text order.
export function scopeOrder(a, b) {
  const rank = (s) => (!s || s === 'global' ? 0 : s === 'owner' ? 1 : 2);
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}
