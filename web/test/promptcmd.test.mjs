// promptcmd.test.mjs: reading prompt commands typed in the composer
// (src/promptcmd.js), run by TestJSUnit (web/js_test.go).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitWords, bindArguments, parse, missing, matches, command } from '../src/promptcmd.js';

const review = { plugin: 'mcp-x', name: 'review', arguments: [{ name: 'code', required: true }, { name: 'lang', required: false }] };
const hello = { plugin: 'mcp-x', name: 'hello', arguments: [] };
const other = { plugin: 'mcp-y', name: 'greet', title: 'Greet', arguments: [] };

test('splitWords keeps quoted spaces and escapes', () => {
  assert.deepEqual(splitWords('  /a  b\tc '), ['/a', 'b', 'c']);
  assert.deepEqual(splitWords(`/a code="x y" 'it''s'`), ['/a', 'code=x y', 'its']);
  assert.deepEqual(splitWords('/a "say \\"hi\\" \\\\ \\n"'), ['/a', 'say "hi" \\ \\n']);
  assert.deepEqual(splitWords('/a 代码="你 好"'), ['/a', '代码=你 好']);
  assert.throws(() => splitWords('/a "x'));
});

test('bindArguments: names, then declared order, the rest joined', () => {
  assert.deepEqual(bindArguments(review, ['a', 'b']), { code: 'a', lang: 'b' });
  assert.deepEqual(bindArguments(review, ['lang=go', 'a', 'b']), { code: 'a b', lang: 'go' });
  assert.deepEqual(bindArguments(review, ['x=1']), { code: 'x=1' });
  assert.deepEqual(bindArguments(review, ['a', 'b', 'c']), { code: 'a', lang: 'b c' });
  assert.throws(() => bindArguments(hello, ['extra']));
});

test('parse finds the prompt and its arguments', () => {
  assert.equal(parse('hello there', [review]), null);
  assert.equal(parse('/etc/hosts is what?', [review]), null);
  assert.equal(parse('/mcp-x:nope a', [review]), null);
  assert.deepEqual(parse('/mcp-x:review code="x := 1" go', [review]), { prompt: review, args: { code: 'x := 1', lang: 'go' } });
  assert.ok(parse('/mcp-x:review "x', [review]).error);
  assert.deepEqual(missing(review, { lang: 'go' }), ['code']);
  assert.deepEqual(missing(review, { code: ' ' }), ['code']);
  assert.deepEqual(missing(review, { code: '1' }), []);
});

test('matches offers prompts while one word is typed', () => {
  const all = [review, hello, other];
  assert.deepEqual(matches('/', all).map(command), ['/mcp-x:review', '/mcp-x:hello', '/mcp-y:greet']);
  assert.deepEqual(matches('/mcp-x:h', all).map(command), ['/mcp-x:hello']);
  assert.deepEqual(matches('/GREET', all).map(command), ['/mcp-y:greet']);
  assert.deepEqual(matches('/mcp-x:review ', all), []);
  assert.deepEqual(matches('review', all), []);
});
