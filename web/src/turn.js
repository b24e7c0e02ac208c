// turn.js: what the chat page makes of a turn's stream events, apart
// from the page so that node's test runner can check it (test/turn.test.mjs).
import { usageOf } from './money.js';

// apply changes items, the live part of the thread, for one stream event
// ev with its data d, and reports whether the event was a turn's.
export function apply(items, ev, d) {
  const last = items[items.length - 1];
  const answer = () => {
    if (last && last.kind === 'assistant' && !last.done) return last;
    const a = { kind: 'assistant', parts: [], reasoning: '', done: false };
    items.push(a);
    return a;
  };
  switch (ev) {
    case 'turn.started': {
      const pending = [...items].reverse().find((i) => i.kind === 'user' && i.pending);
      if (pending) pending.pending = false;
      else if (d.text && !(last && last.kind === 'user' && last.text === d.text)) items.push({ kind: 'user', text: d.text });
      items.push({ kind: 'assistant', parts: [], reasoning: '', done: false });
      break;
    }
    case 'reasoning.delta': answer().reasoning += d.text || ''; break;
    case 'content.delta': {
      const a = answer();
      if (a.notice && !a.notice.source) a.notice = undefined; // the retry answers
      const p = a.parts[a.parts.length - 1];
      if (p && p.type === 'text') p.text += d.text || '';
      else a.parts.push({ type: 'text', text: d.text || '' });
      break;
    }
    case 'tool.started': answer().parts.push({ type: 'tool', id: d.call_id, tool: d.tool, arguments: d.arguments, status: 'running' }); break;
    case 'tool.progress': {
      for (const i of items) for (const p of i.parts || []) {
        if (p.type === 'tool' && p.id === d.call_id && p.status === 'running') p.progress = d.progress;
      }
      break;
    }
    case 'tool.finished': {
      for (const i of items) for (const p of i.parts || []) {
        if (p.type === 'tool' && p.id === d.call_id) { p.status = d.is_error ? 'failed' : 'done'; p.result = d.result; p.progress = undefined; }
      }
      break;
    }
    case 'turn.finished': {
      const a = answer();
      if (!a.parts.some((p) => p.type === 'text') && d.text) a.parts.push({ type: 'text', text: d.text });
      a.done = true; a.trace = d.trace_id; a.usage = usageOf(d.usage);
      break;
    }
    case 'turn.interrupted': { const a = answer(); a.done = true; a.interrupted = true; break; }
    case 'error': { const a = answer(); a.done = true; a.error = d.message; break; }
    case 'model.retry': {
      // A model call failed before its answer began: it is tried again
      // after a wait, or a fallback source answers at once (source).
      const r = d.retry || {};
      answer().notice = { reason: r.reason || '', source: r.source || '', afterMs: r.after_ms || 0 };
      break;
    }
    default: return false;
  }
  return true;
}
