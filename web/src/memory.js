// memory.js: the memory browser: entities with their relations, search,
// rename, merge two names of one thing, and forget; and the document
// memory: documents listed, searched, read and deleted.
import { useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { get, post, del, patch } from './api.js';
import { t } from './i18n.js';
import { Icon } from './icons.js';
import { Status, Tabs, useLoad } from './ui.js';
import { render as markdown } from './markdown.js';

const enc = encodeURIComponent;

function Entity({ name, onChanged }) {
  const [data, error] = useLoad(() => get('/v1/memory/entities/' + enc(name)), [name]);
  const [into, setInto] = useState('');
  const [rename, setRename] = useState('');
  const [err, setErr] = useState('');
  if (!data) return html`<${Status} error=${error} />`;
  const e = data.entity;
  const go = (x, n) => { x.preventDefault(); onChanged(n); };
  const act = async (f, next) => { setErr(''); try { await f(); onChanged(next); } catch (x) { setErr(x.message); } };
  return html`<div class="card" data-testid="entity">
    <div class="row between"><h2>${e.name}</h2>${e.type && html`<span class="pill">${e.type}</span>`}</div>
    <p class="muted small">${t('mem.mentions', { n: e.mentions || 0 })}</p>
    <h3>${t('mem.relations')}</h3>
    ${!(data.relations || []).length && html`<p class="muted small">—</p>`}
    <ul class="relations">${(data.relations || []).map((r) => html`<li>
      <a href="#" onClick=${(x) => go(x, r.source)}>${r.source}</a>
      <span class="rel">— ${r.relation} →</span>
      <a href="#" onClick=${(x) => go(x, r.target)}>${r.target}</a>
      <button class="ghost small" title=${t('mem.forgetRelation')} data-testid="delete-relation"
        onClick=${() => act(() => del(`/v1/memory/relations?source=${enc(r.source)}&relation=${enc(r.relation)}&target=${enc(r.target)}`), name)}><${Icon} name="x" /></button></li>`)}</ul>
    <form class="row" onSubmit=${(x) => { x.preventDefault(); act(() => patch('/v1/memory/entities/' + enc(name), { name: rename.trim() }), rename.trim()); }}>
      <input class="grow" placeholder=${e.name} value=${rename} onInput=${(x) => setRename(x.target.value)} />
      <button disabled=${!rename.trim()}>${t('mem.rename')}</button>
    </form>
    <form class="row" onSubmit=${(x) => { x.preventDefault(); act(() => post('/v1/memory/entities/' + enc(name) + '/merge', { into: into.trim() }), into.trim()); }}>
      <input class="grow" placeholder=${t('mem.mergeInto', { a: e.name })} value=${into} onInput=${(x) => setInto(x.target.value)} />
      <button disabled=${!into.trim()}>${t('mem.merge')}</button>
    </form>
    <div class="row actions">
      <button class="danger" onClick=${() => confirm(t('mem.purgeConfirm', { a: name })) && act(() => del('/v1/memory/entities/' + enc(name)), '')}>${t('mem.hard')}</button>
      <button class="ghost" onClick=${() => act(() => post('/v1/memory/purge', { confirm: 'purge', mode: 'soft', name }), '')}>${t('mem.soft')}</button>
    </div>
    ${err && html`<p class="error small">${err}</p>`}
  </div>`;
}

// Doc shows one document of the document memory, with delete.
function Doc({ id, onDeleted }) {
  const [d, error] = useLoad(() => get('/v1/memory/docs/' + enc(id)), [id]);
  const [err, setErr] = useState('');
  if (!d) return html`<${Status} error=${error} />`;
  const remove = async () => {
    if (!confirm(t('doc.deleteConfirm', { a: d.title || d.id }))) return;
    setErr('');
    try { await del('/v1/memory/docs/' + enc(id)); onDeleted(); } catch (x) { setErr(x.message); }
  };
  return html`<div class="card" data-testid="doc">
    <div class="row between"><h2>${d.title || d.id}</h2>
      <button class="danger" data-testid="delete-doc" onClick=${remove}><${Icon} name="trash" /> ${t('doc.delete')}</button></div>
    <div class="md" dangerouslySetInnerHTML=${{ __html: markdown(d.content) }} />
    ${err && html`<p class="error small">${err}</p>`}
  </div>`;
}

// Docs is the document memory: a list (or a search's hits) and the one
// chosen.
function Docs() {
  const [q, setQ] = useState('');
  const [sel, setSel] = useState('');
  const [n, setN] = useState(0);
  const [data, error] = useLoad(() => get('/v1/memory/docs?limit=200&q=' + enc(q)), [q, n]);
  const docs = data ? data.docs || [] : [];
  return html`<div class="split">
    <div>
      <input class="search" type="search" data-testid="doc-search" placeholder=${t('doc.search')} value=${q} onInput=${(e) => setQ(e.target.value)} />
      ${!data ? html`<${Status} error=${error} />`
        : !docs.length ? html`<p class="muted">${q ? t('doc.noHits') : t('doc.none')}</p>`
        : html`<div class="list">${docs.map((d) => html`<a href="#" key=${d.id} data-testid="doc-item" class=${'session' + (sel === d.id ? ' active' : '')}
            onClick=${(x) => { x.preventDefault(); setSel(d.id); }}>
            <span class="title">${d.title || d.id}</span><span class="small muted ellipsis">${(d.content || '').slice(0, 160)}</span></a>`)}</div>`}
    </div>
    <div>${sel && html`<${Doc} key=${sel} id=${sel} onDeleted=${() => { setSel(''); setN(n + 1); }} />`}</div>
  </div>`;
}

// Entities is the graph memory: entities, searched, and the one chosen.
function Entities({ onChanged }) {
  const [q, setQ] = useState('');
  const [sel, setSel] = useState('');
  const [n, setN] = useState(0);
  const [data, error] = useLoad(() => get('/v1/memory/entities?limit=200&q=' + enc(q)), [q, n]);
  return html`<div class="split">
    <div>
      <input class="search" type="search" placeholder=${t('mem.search')} value=${q} onInput=${(e) => setQ(e.target.value)} />
      ${!data ? html`<${Status} error=${error} />`
        : !(data.entities || []).length ? html`<p class="muted">${t('mem.none')}</p>`
        : html`<div class="list">${data.entities.map((e) => html`<a href="#" class=${'session' + (sel === e.name ? ' active' : '')}
            onClick=${(x) => { x.preventDefault(); setSel(e.name); }}>
            <span class="title">${e.name}</span><span class="small muted">${e.type || '—'} · ${t('mem.mentions', { n: e.mentions })}</span></a>`)}</div>`}
    </div>
    <div>${sel && html`<${Entity} key=${sel + n} name=${sel} onChanged=${(name) => { setSel(name); setN(n + 1); onChanged(); }} />`}</div>
  </div>`;
}

// Memory is the memory page: the graph's entities, or the documents.
export function Memory() {
  const [tab, setTab] = useState('entities');
  const [n, setN] = useState(0);
  const [stats] = useLoad(() => get('/v1/memory'), [n]);
  return html`<div class="page">
    <div class="page-head"><h1>${t('nav.memory')}</h1>
      ${stats && html`<span class="muted small">${t('mem.stats', { e: stats.entities, r: stats.relations, d: stats.documents })}</span>`}</div>
    <${Tabs} value=${tab} onChange=${setTab} tabs=${[['entities', t('mem.entities')], ['docs', t('doc.title')]]} />
    ${tab === 'docs' ? html`<${Docs} />` : html`<${Entities} onChanged=${() => setN(n + 1)} />`}
  </div>`;
}
