// knowledge.js: the knowledge base: entries listed, read, written (with a
// Markdown preview, rendered as chat answers are) and deleted.
import { useEffect, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { get, put, del } from './api.js';
import { Icon } from './icons.js';
import { t } from './i18n.js';
import { Status, Tabs, useLoad } from './ui.js';
import { render as markdown } from './markdown.js';

function Editor({ name, onDone }) {
  const [title, setTitle] = useState(name || '');
  const [text, setText] = useState('');
  const [err, setErr] = useState('');
  const [view, setView] = useState('edit');
  // The parent keys the editor by name: another entry is a new editor,
  // so nothing here resets what the user has typed meanwhile.
  useEffect(() => {
    if (name) get('/v1/knowledge/' + encodeURIComponent(name)).then((r) => setText(r.content || ''), (e) => setErr(e.message));
  }, [name]);
  const save = async (e) => {
    e.preventDefault(); setErr('');
    try {
      await put('/v1/knowledge/' + encodeURIComponent(title.trim()), { content: text });
      if (name && name !== title.trim()) await del('/v1/knowledge/' + encodeURIComponent(name));
      onDone(title.trim());
    } catch (x) { setErr(x.message); }
  };
  const remove = async () => {
    if (!confirm(t('kb.deleteConfirm'))) return;
    try { await del('/v1/knowledge/' + encodeURIComponent(name)); onDone(''); } catch (x) { setErr(x.message); }
  };
  return html`<form class="card editor" onSubmit=${save}>
    <label>${t('kb.title')}<input value=${title} onInput=${(e) => setTitle(e.target.value)} required /></label>
    <div class="field">
      <${Tabs} value=${view} onChange=${setView} tabs=${[['edit', t('kb.edit')], ['preview', t('kb.preview')]]} />
      ${view === 'edit'
        ? html`<textarea rows="16" aria-label=${t('kb.body')} data-testid="kb-text" value=${text} onInput=${(e) => setText(e.target.value)} />`
        : html`<div class="md preview" data-testid="kb-preview" dangerouslySetInnerHTML=${{ __html: text.trim() ? markdown(text) : `<p>${t('kb.empty')}</p>` }} />`}
    </div>
    <div class="row actions">
      <button class="primary" disabled=${!title.trim()}>${t('kb.save')}</button>
      ${name && html`<button type="button" class="danger" onClick=${remove}>${t('kb.delete')}</button>`}
    </div>
    ${err && html`<p class="error small">${err}</p>`}
  </form>`;
}

// Knowledge is the knowledge base page.
export function Knowledge() {
  const [sel, setSel] = useState(null);
  const [q, setQ] = useState('');
  const [data, error, reload] = useLoad(() => get('/v1/knowledge?limit=500&q=' + encodeURIComponent(q)), [q]);
  const entries = data ? data.entries || [] : [];
  return html`<div class="page">
    <div class="page-head"><h1>${t('nav.knowledge')}</h1><button class="primary" onClick=${() => setSel('')}><${Icon} name="plus" /> ${t('kb.new')}</button></div>
    <div class="split">
      <div><input class="search" type="search" placeholder=${t('kb.search')} value=${q} onInput=${(e) => setQ(e.target.value)} />
        ${!data ? html`<${Status} error=${error} />`
        : !entries.length ? html`<p class="muted">${t('kb.none')}</p>`
        : html`<div class="list">${entries.map((e) => {
          const n = e.name || e;
          return html`<a href="#" class=${'session' + (sel === n ? ' active' : '')} onClick=${(x) => { x.preventDefault(); setSel(n); }}>
            <span class="title">${n}</span>${e.excerpt && html`<span class="small muted ellipsis">${e.excerpt}</span>`}</a>`;
        })}</div>`}</div>
      <div>${sel !== null && html`<${Editor} key=${sel} name=${sel} onDone=${(n) => { setSel(n || null); reload(); }} />`}</div>
    </div>
  </div>`;
}
