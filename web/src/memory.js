// memory.js: the memory browser: entities with their relations, search,
// rename, merge two names of one thing, and forget.
import { useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { get, post, del, patch } from './api.js';
import { t } from './i18n.js';
import { Icon } from './icons.js';
import { Status, useLoad } from './ui.js';

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

// Memory is the memory page.
export function Memory() {
  const [q, setQ] = useState('');
  const [sel, setSel] = useState('');
  const [n, setN] = useState(0);
  const [stats] = useLoad(() => get('/v1/memory'), [n]);
  const [data, error] = useLoad(() => get('/v1/memory/entities?limit=200&q=' + enc(q)), [q, n]);
  return html`<div class="page">
    <div class="page-head"><h1>${t('nav.memory')}</h1>
      ${stats && html`<span class="muted small">${t('mem.stats', { e: stats.entities, r: stats.relations, d: stats.documents })}</span>`}</div>
    <div class="split">
      <div>
        <input class="search" type="search" placeholder=${t('mem.search')} value=${q} onInput=${(e) => setQ(e.target.value)} />
        ${!data ? html`<${Status} error=${error} />`
          : !(data.entities || []).length ? html`<p class="muted">${t('mem.none')}</p>`
          : html`<div class="list">${data.entities.map((e) => html`<a href="#" class=${'session' + (sel === e.name ? ' active' : '')}
              onClick=${(x) => { x.preventDefault(); setSel(e.name); }}>
              <span class="title">${e.name}</span><span class="small muted">${e.type || '—'} · ${t('mem.mentions', { n: e.mentions })}</span></a>`)}</div>`}
      </div>
      <div>${sel && html`<${Entity} key=${sel + n} name=${sel} onChanged=${(name) => { setSel(name); setN(n + 1); }} />`}</div>
    </div>
  </div>`;
}
