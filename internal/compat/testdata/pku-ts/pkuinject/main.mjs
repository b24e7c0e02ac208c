// What Go child plugins have, from TypeScript: input injection into the
// plugin's own conversation, and the LLM API (pku_ts_hostapi_test.go).
// plugin.json runs it with run.js too: a plugin that calls serve itself
// is served once.
import { definePlugin, defineTool, serve, z } from '@hearth-agent/plugin-sdk';

serve(definePlugin({
  id: 'pkuinject', name: '转述', description: '问自己的会话。', version: '1.0.0', scopes: [],
  tools: {
    relay: defineTool({
      title: '转述', description: 'Asks the plugin\'s own conversation and returns the answer.', effect: 'read',
      input: z.object({}),
      execute: async (_in, ctx) => {
        const sources = await ctx.services.llm.listSources();
        const current = await ctx.services.llm.currentSource();
        const answer = await ctx.services.input.injectSync('内部问题', { noMemory: true });
        let refused;
        try { await ctx.services.input.inject('冒充', { channel: 'terminal' }); } catch (e) { refused = e instanceof Error ? e.message : String(e); }
        return { answer, sources, current, refused };
      },
    }),
  },
}));
