// memory.js: the memory browser: entities with their relations, search,
// rename, merge two names of one thing, and forget; and the document
// memory: documents listed, searched, read and deleted.
//
// Every entry belongs to a scope (whose conversations it came from) and a
// writer (the plugin that wrote it, "" for the owner), which the page
// shows. One name or id may be held by several scopes or writers: each is
// its own entry, so every call about one entry names its scope and writer
// (the API answers 409 "ambiguous" otherwise).
import { useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { get, post, del, patch } from './api.js';
import { t } from './i18n.js';
import { Icon } from './icons.js';
import { Status, Tabs, useLoad } from './ui.js';
import { render as markdown } from './markdown.js';
import { scopeOrder } from './scope.js';
import { Who, ScopeMenu, where } from './who.js';

const enc = encodeURIComponent;

// same reports whether a and b are the same entry.
const same = (a, b) => !!a && !!b && a.name === b.name && a.scope === b.scope && (a.writer || '') === (b.writer || '');
const entryKey = (x) => [x.scope, x.writer || '', x.name ?? x.id].join('\u0000');

// Entity shows one entity (entry: its name, scope and writer) with its
// relations, and what can be done with it; onChanged gets the entity to
// show next (null for none).
function Entity({ entry: r, onChanged }) {
  const base = '/v1/memory/entities/' + enc(r.name);
  const q = '?' + where(r);
  const [data, error] = useLoad(() => get(base + q), [base, q]);
  if (!data) return html`<${Status} error=${error} />`;
  return html`<${EntityCard} entry=${r} data=${data} onChanged=${onChanged} />`;
}

// EntityCard is Entity once loaded: data is the entity and its relations.
function EntityCard({ entry: r, data, onChanged }) {
  const base = '/v1/memory/entities/' + enc(r.name);
  const q = '?' + where(r);
  const e = data.entity;
  const [into, setInto] = useState('');
  const [rename, setRename] = useState('');
  const [kind, setKind] = useState(e.type || '');
  const [err, setErr] = useState('');
  const go = (x, name, rel) => { x.preventDefault(); onChanged({ name, scope: rel.scope, writer: rel.writer }); };
  const act = async (f, next) => { setErr(''); try { await f(); onChanged(next); } catch (x) { setErr(x.message); } };
  return html`<div class="card" data-testid="entity">
    <div class="row between"><h2>${e.name}</h2>${e.type && html`<span class="pill">${e.type}</span>`}</div>
    <p class="row small"><${Who} x=${e} /><span class="muted">${t('mem.mentions', { n: e.mentions || 0 })}</span></p>
    <h3>${t('mem.relations')}</h3>
    ${!(data.relations || []).length && html`<p class="muted small">—</p>`}
    <ul class="relations">${(data.relations || []).map((rel) => html`<li>
      <a href="#" onClick=${(x) => go(x, rel.source, rel)}>${rel.source}</a>
      <span class="rel">— ${rel.relation} →</span>
      <a href="#" onClick=${(x) => go(x, rel.target, rel)}>${rel.target}</a>
      ${(rel.scope !== e.scope || (rel.writer || '') !== (e.writer || '')) && html`<${Who} x=${rel} />`}
      <button class="ghost small" title=${t('mem.forgetRelation')} data-testid="delete-relation"
        onClick=${() => act(() => del(`/v1/memory/relations?source=${enc(rel.source)}&relation=${enc(rel.relation)}&target=${enc(rel.target)}&${where(rel)}`), r)}><${Icon} name="x" /></button></li>`)}</ul>
    <form class="row mem-edit" onSubmit=${(x) => { x.preventDefault(); act(() => patch(base + q, { name: rename.trim() }), { ...r, name: rename.trim() }); }}>
      <input class="grow" placeholder=${e.name} value=${rename} onInput=${(x) => setRename(x.target.value)} />
      <button disabled=${!rename.trim()}>${t('mem.rename')}</button>
    </form>
    <form class="row mem-edit" onSubmit=${(x) => { x.preventDefault(); act(() => post(base + '/merge' + q, { into: into.trim() }), { ...r, name: into.trim() }); }}>
      <input class="grow" placeholder=${t('mem.mergeInto', { a: e.name })} value=${into} onInput=${(x) => setInto(x.target.value)} />
      <button disabled=${!into.trim()}>${t('mem.merge')}</button>
    </form>
    <form class="row mem-edit" onSubmit=${(x) => { x.preventDefault(); act(() => patch(base + q, { type: kind.trim() }), r); }}>
      <input class="grow" data-testid="entity-type" placeholder=${t('mem.typeOf', { a: e.name })} value=${kind} onInput=${(x) => setKind(x.target.value)} />
      <button disabled=${kind.trim() === (e.type || '')}>${t('mem.setType')}</button>
    </form>
    <div class="row actions">
      <button class="danger" data-testid="delete-entity" onClick=${() => confirm(t('mem.purgeConfirm', { a: r.name })) && act(() => del(base + q), null)}>${t('mem.hard')}</button>
      <button class="ghost" data-testid="hide-entity" onClick=${() => act(() => post('/v1/memory/purge' + q, { confirm: 'purge', mode: 'soft', name: r.name }), null)}>${t('mem.soft')}</button>
    </div>
    ${err && html`<p class="error small">${err}</p>`}
  </div>`;
}

// Doc shows one document of the document memory (entry: its id, scope and
// writer), with delete.
function Doc({ entry: r, onDeleted }) {
  const path = '/v1/memory/docs/' + enc(r.id) + '?' + where(r);
  const [d, error] = useLoad(() => get(path), [path]);
  const [err, setErr] = useState('');
  if (!d) return html`<${Status} error=${error} />`;
  const remove = async () => {
    if (!confirm(t('doc.deleteConfirm', { a: d.title || d.id }))) return;
    setErr('');
    try { await del(path); onDeleted(); } catch (x) { setErr(x.message); }
  };
  return html`<div class="card" data-testid="doc">
    <div class="row between"><h2>${d.title || d.id}</h2>
      <button class="danger" data-testid="delete-doc" onClick=${remove}><${Icon} name="trash" /> ${t('doc.delete')}</button></div>
    <p class="row small"><${Who} x=${d} /><span class="muted">${d.id}</span></p>
    <div class="md" dangerouslySetInnerHTML=${{ __html: markdown(d.content) }} />
    ${err && html`<p class="error small">${err}</p>`}
  </div>`;
}

// Docs is the document memory in scope (every scope when ""): a list (or
// a search's hits) and the one chosen.
function Docs({ scope, onChanged }) {
  const [q, setQ] = useState('');
  const [sel, setSel] = useState(null);
  const [n, setN] = useState(0);
  const narrow = scope ? '&scope=' + enc(scope) : '';
  const [data, error] = useLoad(() => get('/v1/memory/docs?limit=200&q=' + enc(q) + narrow), [q, narrow, n]);
  const docs = data ? data.docs || [] : [];
  const isSel = (d) => !!sel && sel.id === d.id && sel.scope === d.scope && (sel.writer || '') === (d.writer || '');
  return html`<div class="split">
    <div>
      <input class="search" type="search" data-testid="doc-search" placeholder=${t('doc.search')} value=${q} onInput=${(e) => setQ(e.target.value)} />
      ${!data ? html`<${Status} error=${error} />`
        : !docs.length ? html`<p class="muted">${q ? t('doc.noHits') : t('doc.none')}</p>`
        : html`<div class="list">${docs.map((d) => html`<a href="#" key=${entryKey(d)} data-testid="doc-item" class=${'session' + (isSel(d) ? ' active' : '')}
            onClick=${(x) => { x.preventDefault(); setSel({ id: d.id, scope: d.scope, writer: d.writer }); }}>
            <span class="title">${d.title || d.id}</span><${Who} x=${d} />
            <span class="small muted ellipsis">${(d.content || '').slice(0, 160)}</span></a>`)}</div>`}
    </div>
    <div>${sel && html`<${Doc} key=${entryKey(sel)} entry=${sel} onDeleted=${() => { setSel(null); setN(n + 1); onChanged(); }} />`}</div>
  </div>`;
}

// Entities is the graph memory in scope (every scope when ""): entities,
// searched, and the one chosen.
function Entities({ scope, onChanged }) {
  const [q, setQ] = useState('');
  const [sel, setSel] = useState(null);
  const [n, setN] = useState(0);
  const narrow = scope ? '&scope=' + enc(scope) : '';
  const [data, error] = useLoad(() => get('/v1/memory/entities?limit=200&q=' + enc(q) + narrow), [q, narrow, n]);
  return html`<div class="split">
    <div>
      <input class="search" type="search" placeholder=${t('mem.search')} value=${q} onInput=${(e) => setQ(e.target.value)} />
      ${!data ? html`<${Status} error=${error} />`
        : !(data.entities || []).length ? html`<p class="muted">${t('mem.none')}</p>`
        : html`<div class="list">${data.entities.map((e) => html`<a href="#" key=${entryKey(e)} data-testid="entity-item" class=${'session' + (same(sel, e) ? ' active' : '')}
            onClick=${(x) => { x.preventDefault(); setSel({ name: e.name, scope: e.scope, writer: e.writer }); }}>
            <span class="title">${e.name}</span><${Who} x=${e} />
            <span class="small muted">${e.type || '—'} · ${t('mem.mentions', { n: e.mentions })}</span></a>`)}</div>`}
    </div>
    <div>${sel && html`<${Entity} key=${entryKey(sel) + '\u0000' + n} entry=${sel} onChanged=${(next) => { setSel(next); setN(n + 1); onChanged(); }} />`}</div>
  </div>`;
}

// presentScopes loads the scopes that hold entities, relations or
// documents (of the first 500 of each), in a stable order: global,
// owner, then the rest sorted.
async function presentScopes() {
  const [e, r, d] = await Promise.all(['entities', 'relations', 'docs'].map((k) =>
    get(`/v1/memory/${k}?limit=500`).catch(() => ({}))));
  const seen = new Set([...(e.entities || []), ...(r.relations || []), ...(d.docs || [])].map((x) => x.scope || 'global'));
  return [...seen].sort(scopeOrder);
}

// Memory is the memory page: the graph's entities, or the documents, of
// every scope or of the one chosen.
export function Memory() {
  const [tab, setTab] = useState('entities');
  const [scope, setScope] = useState('');
  const [n, setN] = useState(0);
  const narrow = scope ? '?scope=' + enc(scope) : '';
  const [stats] = useLoad(() => get('/v1/memory' + narrow), [narrow, n]);
  const [scopes] = useLoad(presentScopes, [n]);
  const changed = () => setN(n + 1);
  return html`<div class="page">
    <div class="page-head"><h1>${t('nav.memory')}</h1>
      ${stats && html`<span class="muted small">${t('mem.stats', { e: stats.entities, r: stats.relations, d: stats.documents })}</span>`}</div>
    <div class="row mem-bar">
      <${Tabs} value=${tab} onChange=${setTab} tabs=${[['entities', t('mem.entities')], ['docs', t('doc.title')]]} />
      <${ScopeMenu} value=${scope} onChange=${setScope} scopes=${scopes} />
    </div>
    ${tab === 'docs' ? html`<${Docs} key=${'d' + scope} scope=${scope} onChanged=${changed} />`
      : html`<${Entities} key=${'e' + scope} scope=${scope} onChanged=${changed} />`}
  </div>`;
}
