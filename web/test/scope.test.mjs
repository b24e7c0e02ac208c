// scope.test.mjs: reading memory scopes (src/scope.js), run by TestJSUnit
// (web/js_test.go).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseScope, scopeOrder } from '../src/scope.js';

test('parseScope names each kind of scope', () => {
  const cases = [
    ['', { kind: 'global', channel: '', id: '' }],
    ['global', { kind: 'global', channel: '', id: '' }],
    ['owner', { kind: 'owner', channel: '', id: '' }],
    ['user:qq/12345', { kind: 'user', channel: 'qq', id: '12345' }],
    ['chat:qq/group:678', { kind: 'group', channel: 'qq', id: '678' }],
    ['chat:web/c1', { kind: 'chat', channel: 'web', id: 'c1' }],
    ['chat:telegram/a/b', { kind: 'chat', channel: 'telegram', id: 'a/b' }],
    ['chat:qq/group:', { kind: 'chat', channel: 'qq', id: 'group:' }],
    ['user:微信/张三', { kind: 'user', channel: '微信', id: '张三' }],
    ['user:/x', { kind: 'other', channel: '', id: 'user:/x' }],
    ['user:qq/', { kind: 'other', channel: '', id: 'user:qq/' }],
    ['team:x/y', { kind: 'other', channel: '', id: 'team:x/y' }],
  ];
  for (const [s, want] of cases) assert.deepEqual(parseScope(s), want, s);
});

test('scopeOrder puts global and owner first', () => {
  const got = ['user:qq/2', 'chat:qq/group:1', 'owner', 'global', 'user:qq/1'].sort(scopeOrder);
  assert.deepEqual(got, ['global', 'owner', 'chat:qq/group:1', 'user:qq/1', 'user:qq/2']);
});
