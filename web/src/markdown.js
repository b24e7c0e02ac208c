// markdown.js: model output to safe HTML. marked renders, DOMPurify
// removes anything active (scripts, event handlers, javascript: URLs,
// styles); links open in a new tab without an opener or a referrer.
import { marked } from 'marked';
import DOMPurify from 'dompurify';

const escape = (s) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

// Raw HTML in the model's answer is shown as text, never parsed: the
// sanitiser below is the second lock, not the first.
marked.use({
  gfm: true,
  breaks: true,
  renderer: {
    html(token) { return escape(token.text || token.raw || ''); },
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
  return DOMPurify.sanitize(marked.parse(text || '', { async: false }), config);
}
