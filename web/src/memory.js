// memory.js: the memory browser: entities with their relations, search,
// merge two names of one thing, and forget.
import { useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { get, post, del } from './api.js';
import { t } from './i18n.js';
import { Status, useLoad } from './ui.js';

function Entity({ name, onChanged }) {
  const [data, error, reload] = useLoad(() => get('/v1/memory/entities/' + encodeURIComponent(name)), [name]);
  const [into, setInto] = useState('');
  const [err, setErr] = useState('');
  if (!data) return html`<${Status} error=${error} />`;
  const e = data.entity || data;
  const merge = async (ev) => {
    ev.preventDefault(); setErr('');
    try { await post('/v1/memory/merge', { source: name, target: into.trim() }); onChanged(into.trim()); } catch (x) { setErr(x.message); }
  };
  const purge = async (hard) => {
    if (!confirm(t('mem.purgeConfirm', { a: name }))) return;
    try {
      await post('/v1/memory/purge', { criteria: { name }, mode: hard ? 'hard' : 'soft' });
      onChanged('');
    } catch (x) { setErr(x.message); }
  };
  return html`<div class="card">
    <div class="row between"><h2>${e.name}</h2><span class="pill">${e.type}</span></div>
    <p class="muted small">${t('mem.mentions', { n: e.mention_count || 0 })}</p>
    <h3>${t('mem.relations')}</h3>
    <ul class="relations">${(data.relations || []).map((r) => html`<li>
      <a href="#" onClick=${(x) => { x.preventDefault(); onChanged(r.source_name); }}>${r.source_name}</a>
      <span class="rel">— ${r.relation_type} →</span>
      <a href="#" onClick=${(x) => { x.preventDefault(); onChanged(r.target_name); }}>${r.target_name}</a></li>`)}</ul>
    <form class="row" onSubmit=${merge}>
      <input placeholder=${t('mem.mergeInto', { a: e.name })} value=${into} onInput=${(x) => setInto(x.target.value)} />
      <button disabled=${!into.trim()}>${t('mem.merge')}</button>
    </form>
    <div class="row actions">
      <button class="danger" onClick=${() => purge(false)}>${t('mem.purge')}</button>
      <button class="ghost danger" onClick=${() => purge(true)}>${t('mem.hard')}</button>
    </div>
    ${err && html`<p class="error small">${err}</p>`}
  </div>`;
}

// Memory is the memory page.
export function Memory() {
  const [q, setQ] = useState('');
  const [sel, setSel] = useState('');
  const [data, error, reload] = useLoad(() => get('/v1/memory/entities?q=' + encodeURIComponent(q)), [q]);
  return html`<div class="page">
    <div class="page-head"><h1>${t('nav.memory')}</h1></div>
    <div class="split">
      <div>
        <input class="search" type="search" placeholder=${t('mem.search')} value=${q} onInput=${(e) => setQ(e.target.value)} />
        ${!data ? html`<${Status} error=${error} />`
          : !(data.entities || []).length ? html`<p class="muted">${t('mem.none')}</p>`
          : html`<div class="list">${data.entities.map((e) => html`<a href="#" class=${'session' + (sel === e.name ? ' active' : '')}
              onClick=${(x) => { x.preventDefault(); setSel(e.name); }}>
              <span class="title">${e.name}</span><span class="small muted">${e.type} · ${t('mem.mentions', { n: e.mention_count })}</span></a>`)}</div>`}
      </div>
      <div>${sel && html`<${Entity} name=${sel} onChanged=${(n) => { setSel(n); reload(); }} />`}</div>
    </div>
  </div>`;
}
