// The [[.ID]] plugin: its tools and stage handlers. main.mjs serves it;
// plugin.test.mjs tests it. Hearth provides @hearth-agent/plugin-sdk (and
// zod); node_modules/ holds a copy for `node --test`.
import { definePlugin, defineTool, z } from '@hearth-agent/plugin-sdk';

export default definePlugin({
  id: '[[.ID]]',
  name: '[[.ID]]',
  version: '0.1.0',
  tools: {
    hello: defineTool({
      description: 'Greets someone by name.',
      effect: 'read',
      input: z.object({ name: z.string().describe('who to greet') }),
      execute: ({ name }) => `Hello, ${name}!`,
    }),
  },
});
