// sse.test.mjs: the UI's server-sent events parser (src/api.js), run by
// TestJSUnit (web/js_test.go) with node's test runner.
import { test } from 'node:test';
import assert from 'node:assert/strict';

globalThis.localStorage = { getItem: () => null, setItem() {}, removeItem() {} };
globalThis.sessionStorage = globalThis.localStorage;
const { parseSSE } = await import('../src/api.js');

test('events, comments, ids and multi-line data', () => {
  const [evs, rest] = parseSSE(': keep-alive\n\nevent: content.delta\nid: 7\ndata: {"text":"hi"}\n\ndata: a\ndata: b\n\nevent: x\ndata: {"par');
  assert.equal(evs.length, 2);
  assert.deepEqual([evs[0].event, evs[0].id, evs[0].json], ['content.delta', '7', { text: 'hi' }]);
  assert.deepEqual([evs[1].event, evs[1].data, evs[1].json], ['message', 'a\nb', null]);
  assert.equal(rest, 'event: x\ndata: {"par');
});

test('CRLF and a chunk split anywhere give the same events', () => {
  const text = 'event: turn.started\r\ndata: {"session_id":1,"text":"你好"}\r\n\r\nevent: turn.finished\ndata:{"text":"ok"}\n\n';
  const whole = parseSSE(text)[0];
  for (let cut = 0; cut <= text.length; cut++) {
    let [a, rest] = parseSSE(text.slice(0, cut));
    const [b, rest2] = parseSSE(rest + text.slice(cut));
    assert.deepEqual([...a, ...b].map((e) => [e.event, e.data]), whole.map((e) => [e.event, e.data]), 'cut at ' + cut);
    assert.equal(rest2, '');
  }
  assert.equal(whole[1].json.text, 'ok');
});

test('garbage never throws', () => {
  for (const s of ['\n\n\n', 'data\n\n', ':\n:\n\n', 'data: {\n\n', '\u0000\n\n', 'event:\ndata:\n\n']) {
    assert.doesNotThrow(() => parseSSE(s));
  }
});
