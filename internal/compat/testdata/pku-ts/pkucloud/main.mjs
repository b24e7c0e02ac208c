// A PKU plugin that needs PKU harness Cloud, which Hearth does not have:
// Hearth hides it (requires: ['cloud'], a Capability it cannot give).
import { definePlugin, defineTool, serve, z } from '@hearth-agent/plugin-sdk';

serve(definePlugin({
  id: 'pkucloud', name: '云', description: '要用云服务。', version: '1.0.0',
  requires: ['cloud'], cloud: { optional: false }, scopes: [],
  tools: { sync: defineTool({ title: '同步', description: '同步。', input: z.object({}), effect: 'write', execute: () => 'ok' }) },
}));
