// knowledge.js: the knowledge base: entries listed by folder ("recipes/红烧肉"
// is 红烧肉 in recipes/), searched (hits best first, each naming its file),
// read, written (with a Markdown preview, rendered as chat answers are)
// and deleted.
//
// Every entry has a scope and a writer (who.js): the same name in two
// scopes or from two writers is two entries, so every call about one
// entry names its scope and writer. What the owner writes here is global.
import { useEffect, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { get, put, del } from './api.js';
import { Icon } from './icons.js';
import { t } from './i18n.js';
import { Status, Tabs, useLoad } from './ui.js';
import { render as markdown } from './markdown.js';
import { scopeOrder } from './scope.js';
import { Who, ScopeMenu, where } from './who.js';

const enc = encodeURIComponent;

// entryPath is an entry's route: its name escaped a folder at a time.
const entryPath = (name) => '/v1/knowledge/' + name.split('/').map(enc).join('/');

// keyOf names an entry for keys and comparisons.
const keyOf = (e) => [e.scope || 'global', e.writer || '', e.name].join('\u0000');

// split returns a name's folder ("" at the top) and its last part.
function split(name) {
  const i = name.lastIndexOf('/');
  return i < 0 ? ['', name] : [name.slice(0, i), name.slice(i + 1)];
}

// Editor reads and writes one entry (entry: its name, scope and writer;
// a new one has no name and is the owner's, global).
function Editor({ entry, onDone }) {
  const [title, setTitle] = useState(entry.name || '');
  const [text, setText] = useState('');
  const [err, setErr] = useState('');
  const [view, setView] = useState('edit');
  const at = (name) => entryPath(name) + '?' + where(entry);
  // The parent keys the editor by entry: another entry is a new editor,
  // so nothing here resets what the user has typed meanwhile.
  useEffect(() => {
    if (entry.name) get(at(entry.name)).then((r) => setText(r.content || ''), (e) => setErr(e.message));
  }, [keyOf(entry)]);
  const save = async (e) => {
    e.preventDefault(); setErr('');
    const name = title.trim().replace(/^\/+|\/+$/g, '');
    try {
      await put(at(name), { content: text });
      if (entry.name && entry.name !== name) await del(at(entry.name));
      onDone({ ...entry, name });
    } catch (x) { setErr(x.message); }
  };
  const remove = async () => {
    if (!confirm(t('kb.deleteConfirm'))) return;
    try { await del(at(entry.name)); onDone(null); } catch (x) { setErr(x.message); }
  };
  return html`<form class="card editor" onSubmit=${save}>
    ${entry.name && html`<p class="row small"><${Who} x=${entry} /></p>`}
    <label>${t('kb.title')}<input value=${title} placeholder=${t('kb.namePlaceholder')} onInput=${(e) => setTitle(e.target.value)} required /></label>
    <div class="field">
      <${Tabs} value=${view} onChange=${setView} tabs=${[['edit', t('kb.edit')], ['preview', t('kb.preview')]]} />
      ${view === 'edit'
        ? html`<textarea rows="16" aria-label=${t('kb.body')} data-testid="kb-text" value=${text} onInput=${(e) => setText(e.target.value)} />`
        : html`<div class="md preview" data-testid="kb-preview" dangerouslySetInnerHTML=${{ __html: text.trim() ? markdown(text) : `<p>${t('kb.empty')}</p>` }} />`}
    </div>
    <div class="row actions">
      <button class="primary" disabled=${!title.trim()}>${t('kb.save')}</button>
      ${entry.name && html`<button type="button" class="danger" data-testid="kb-delete" onClick=${remove}>${t('kb.delete')}</button>`}
    </div>
    ${err && html`<p class="error small">${err}</p>`}
  </form>`;
}

// Tree lists entries under their folders, folders in name order. An
// entry shows its scope and writer unless it is the owner's, global, and
// alone with its name.
function Tree({ entries, sel, onPick }) {
  const count = new Map();
  for (const e of entries) count.set(e.name, (count.get(e.name) || 0) + 1);
  const folders = new Map();
  for (const e of entries) {
    const [dir] = split(e.name);
    if (!folders.has(dir)) folders.set(dir, []);
    folders.get(dir).push(e);
  }
  const dirs = [...folders.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return html`<div class="list">${dirs.map((dir) => html`
    ${dir && html`<div class="kb-folder small" data-testid="kb-folder">${dir}/</div>`}
    ${folders.get(dir).map((e) => {
      const [, base] = split(e.name);
      return html`<a href="#" key=${keyOf(e)} data-testid="kb-item" class=${'session' + (dir ? ' kb-nested' : '') + (sel && keyOf(sel) === keyOf(e) ? ' active' : '')}
        onClick=${(x) => { x.preventDefault(); onPick(e); }}>
        <span class="title">${base}</span>
        ${e.title && e.title !== base && html`<span class="small muted ellipsis">${e.title}</span>`}
        ${(e.scope !== 'global' || e.writer || count.get(e.name) > 1) && html`<${Who} x=${e} />`}</a>`;
    })}`)}</div>`;
}

// Hits lists a search's hits, best first, each naming its file.
function Hits({ hits, sel, onPick }) {
  return html`<ol class="list kb-hits">${hits.map((e, i) => html`<li key=${keyOf(e)}>
    <a href="#" data-testid="kb-hit" class=${'session' + (sel && keyOf(sel) === keyOf(e) ? ' active' : '')}
      onClick=${(x) => { x.preventDefault(); onPick(e); }}>
      <span class="title"><span class="kb-rank">${i + 1}</span> ${e.title || split(e.name)[1]}</span>
      <span class="small kb-file" data-testid="kb-file">${e.file || e.name}</span>
      ${(e.scope !== 'global' || e.writer) && html`<${Who} x=${e} />`}
      ${e.excerpt && html`<span class="small muted ellipsis">${e.excerpt.replace(/^#+\s*/gm, '')}</span>`}</a></li>`)}</ol>`;
}

// presentScopes loads the scopes that hold entries (of the first 500).
async function presentScopes() {
  const page = await get('/v1/knowledge?limit=500').catch(() => ({}));
  return [...new Set((page.entries || []).map((e) => e.scope || 'global'))].sort(scopeOrder);
}

// Knowledge is the knowledge base page.
export function Knowledge() {
  const [sel, setSel] = useState(null);
  const [q, setQ] = useState('');
  const [scope, setScope] = useState('');
  const [n, setN] = useState(0);
  const narrow = scope ? '&scope=' + enc(scope) : '';
  const [data, error] = useLoad(() => get('/v1/knowledge?limit=500&q=' + enc(q) + narrow), [q, narrow, n]);
  const [scopes] = useLoad(presentScopes, [n]);
  const entries = data ? data.entries || [] : [];
  const pick = (e) => setSel({ name: e.name, scope: e.scope || 'global', writer: e.writer || '' });
  return html`<div class="page">
    <div class="page-head"><h1>${t('nav.knowledge')}</h1><button class="primary" onClick=${() => setSel({ name: '', scope: 'global', writer: '' })}><${Icon} name="plus" /> ${t('kb.new')}</button></div>
    <div class="split">
      <div>
        <div class="row kb-bar"><input class="search grow" type="search" data-testid="kb-search" placeholder=${t('kb.search')} value=${q} onInput=${(e) => setQ(e.target.value)} />
          <${ScopeMenu} value=${scope} onChange=${setScope} scopes=${scopes} /></div>
        ${!data ? html`<${Status} error=${error} />`
        : !entries.length ? html`<p class="muted">${q ? t('kb.noHits') : t('kb.none')}</p>`
        : q.trim() ? html`<${Hits} hits=${entries} sel=${sel} onPick=${pick} />`
        : html`<${Tree} entries=${entries} sel=${sel} onPick=${pick} />`}
        ${data && data.total > entries.length && !q.trim() && html`<p class="muted small">${t('kb.more', { n: entries.length, total: data.total })}</p>`}
      </div>
      <div>${sel && html`<${Editor} key=${keyOf(sel)} entry=${sel} onDone=${(e) => { setSel(e); setN(n + 1); }} />`}</div>
    </div>
  </div>`;
}
