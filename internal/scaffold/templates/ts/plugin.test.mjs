// Run with `node --test`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inputSchema } from '@hearth-agent/plugin-sdk';
import plugin from './plugin.mjs';

test('hello greets by name', async () => {
  assert.equal(await plugin.tools.hello.execute({ name: 'Ada' }, { actor: 'test' }), 'Hello, Ada!');
});

test('hello asks the model for a name', () => {
  assert.deepEqual(inputSchema(plugin.tools.hello.input).required, ['name']);
});
