// who.js: an entry's scope and writer in words (memory and knowledge
// pages), and the menu that picks one scope.
import { html } from 'htm/preact';
import { t } from './i18n.js';
import { channelName } from './ui.js';
import { parseScope } from './scope.js';

const enc = encodeURIComponent;

// where is the query naming an entry's scope and writer; the API answers
// 409 "ambiguous" for a name several scopes or writers hold without it.
export const where = (x) => `scope=${enc(x.scope || 'global')}&writer=${enc(x.writer || '')}`;

// scopeName is a scope in words: Global, the owner's conversations, a
// person ("qq · 12345") or a chat ("Group qq · 678").
export function scopeName(s) {
  const p = parseScope(s);
  const c = `${channelName(p.channel)} · ${p.id}`;
  switch (p.kind) {
    case 'global': return t('scope.global');
    case 'owner': return t('scope.owner');
    case 'user': return c;
    case 'group': return t('scope.group', { c });
    case 'chat': return t('scope.chat', { c });
  }
  return p.id;
}

// writerName is a writer in words: a plugin's id, or You for the owner.
export function writerName(w) { return w ? w : t('writer.you'); }

// Who shows an entry's scope and writer.
export function Who({ x }) {
  return html`<span class="who" data-testid="who">
    <span class=${'pill scope scope-' + (x.scope || 'global').replace(/:.*/, '')} title=${t('mem.scope') + ': ' + (x.scope || 'global')}>${scopeName(x.scope)}</span>
    <span class=${'pill writer' + (x.writer ? '' : ' you')} title=${t('mem.writer')}>${writerName(x.writer)}</span></span>`;
}

// ScopeMenu picks one of scopes (null while they load), or every scope
// (value "").
export function ScopeMenu({ value, onChange, scopes }) {
  const options = [...(scopes || [])];
  if (value && !options.includes(value)) options.push(value);
  return html`<label class="row small scope-menu">${t('mem.scope')}
    <select data-testid="scope-filter" value=${value} onChange=${(e) => onChange(e.target.value)}>
      <option value="">${t('mem.allScopes')}</option>
      ${options.map((s) => html`<option value=${s}>${scopeName(s)}</option>`)}
    </select></label>`;
}
