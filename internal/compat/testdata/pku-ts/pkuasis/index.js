// A PKU harness plugin as PKU plugins are written: it imports the SDK by
// PKU's name and zod on its own, exports its definition and never calls
// serve; Hearth runs it with run.js (pku_ts_asis_test.go).
import { definePlugin, definePreference, defineTool } from '@pku-harness/sdk';
import { z } from 'zod';

export const asisPlugin = definePlugin({
  id: 'pkuasis',
  name: '原样',
  description: '照 PKU 的写法。',
  version: '0.1.0',
  requires: ['network'],
  scopes: [],
  preferences: {
    loud: definePreference({
      title: '大声', kind: 'boolean', input: z.boolean(),
      get: async (c) => (await c.kv.get('loud')) ?? false,
      set: async (c, v) => { await c.kv.set('loud', v); },
    }),
  },
  tools: {
    greet: defineTool({
      title: '问候', description: '问候一个人。', effect: 'read',
      input: z.object({ name: z.string() }),
      execute: async ({ name }, ctx) => ((await ctx.kv.get('loud')) ? `你好，${name}！！` : `你好，${name}`),
    }),
  },
});
