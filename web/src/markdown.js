// markdown.js: model output to safe HTML. marked renders, DOMPurify
// removes anything active (scripts, event handlers, javascript: URLs,
// styles); links open in a new tab without an opener or a referrer. Code
// blocks in a few common languages are then coloured by highlight.js,
// whose output is the code's text, escaped, in <span class="hljs-...">.
import { marked } from 'marked';
import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import go from 'highlight.js/lib/languages/go';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';

for (const [name, lang] of Object.entries({ bash, go, javascript, json, python })) hljs.registerLanguage(name, lang);
hljs.registerAliases(['sh', 'shell', 'zsh'], { languageName: 'bash' });
hljs.registerAliases(['js', 'ts', 'typescript', 'jsx'], { languageName: 'javascript' });
hljs.registerAliases(['py'], { languageName: 'python' });
hljs.registerAliases(['golang'], { languageName: 'go' });

const escape = (s) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

// Raw HTML in the model's answer is shown as text, never parsed: the
// sanitiser below is the second lock, not the first.
marked.use({
  gfm: true,
  breaks: true,
  renderer: {
    html(token) { return escape(token.text || token.raw || ''); },
    // The language travels in data-lang (DOMPurify drops class).
    code(token) {
      const lang = (token.lang || '').trim().split(/\s/)[0].toLowerCase();
      const attr = /^[\w+-]{1,20}$/.test(lang) ? ` data-lang="${lang}"` : '';
      return `<pre><code${attr}>${escape(token.text || '')}</code></pre>\n`;
    },
  },
});

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
  if (node.tagName === 'IMG') node.setAttribute('referrerpolicy', 'no-referrer');
});

const config = {
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe'],
  FORBID_ATTR: ['style', 'id', 'class'],
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#|\/(?!\/))/i,
};

// render returns sanitised HTML for Markdown text.
export function render(text) {
  const html = DOMPurify.sanitize(marked.parse(text || '', { async: false }), config);
  if (!html.includes('data-lang=')) return html;
  const box = document.createElement('template'); // inert: loads nothing, runs nothing
  box.innerHTML = html;
  for (const code of box.content.querySelectorAll('pre > code[data-lang]')) {
    const language = code.getAttribute('data-lang');
    if (!hljs.getLanguage(language)) continue;
    code.innerHTML = hljs.highlight(code.textContent, { language, ignoreIllegals: true }).value;
    code.classList.add('hljs');
  }
  return box.innerHTML;
}
