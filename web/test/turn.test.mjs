// turn.test.mjs: what the chat page makes of a turn's stream events
// (src/turn.js), run by TestJSUnit (web/js_test.go).
import { test } from 'node:test';
import assert from 'node:assert/strict';

globalThis.localStorage = { getItem: () => null, setItem() {}, removeItem() {} };
// What i18n.js reads of the page when it loads.
Object.defineProperty(globalThis, 'navigator', { value: { language: 'en' }, configurable: true });
globalThis.document = { documentElement: {} };
const { apply } = await import('../src/turn.js');
const { t } = await import('../src/i18n.js');

const run = (events) => {
  const items = [];
  for (const [ev, d] of events) apply(items, ev, d);
  return items;
};

test('a retry shows until the answer comes', () => {
  const items = run([
    ['turn.started', { text: 'hi' }],
    ['model.retry', { text: '429 rate limited, retrying in 2 s', retry: { attempt: 1, after_ms: 2000, reason: '429 rate limited' } }],
  ]);
  assert.deepEqual(items[1].notice, { reason: '429 rate limited', source: '', afterMs: 2000 });
  apply(items, 'content.delta', { text: 'hello' });
  assert.equal(items[1].notice, undefined);
  assert.equal(items[1].parts[0].text, 'hello');
});

test('a fallback source stays named after its answer', () => {
  const items = run([
    ['turn.started', { text: 'hi' }],
    ['model.retry', { retry: { attempt: 0, after_ms: 0, reason: 'deepseek: 503 service unavailable', source: 'qwen' } }],
    ['content.delta', { text: 'hello' }],
    ['turn.finished', { text: 'hello' }],
  ]);
  assert.deepEqual(items[1].notice, { reason: 'deepseek: 503 service unavailable', source: 'qwen', afterMs: 0 });
  assert.equal(items[1].done, true);
});

test('a retry event without its details does not throw', () => {
  const items = run([['model.retry', {}]]);
  assert.deepEqual(items[0].notice, { reason: '', source: '', afterMs: 0 });
});

test('the notices read in English and Chinese', () => {
  assert.equal(t('chat.fallback', { reason: 'deepseek: 429 rate limited', source: 'qwen' }, 'en'), 'deepseek: 429 rate limited; answering with qwen.');
  assert.equal(t('chat.fallback', { reason: 'deepseek: 429 rate limited', source: 'qwen' }, 'zh'), 'deepseek: 429 rate limited；改用 qwen 回答。');
  assert.match(t('chat.retrying', { reason: '429 rate limited', s: '2' }, 'zh'), /2 秒后重试/);
});
