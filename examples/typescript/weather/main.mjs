// A Hearth plugin in TypeScript-flavoured JavaScript (the SDK ships types
// in index.d.ts): one read tool with a zod input, one stage handler.
// Hearth provides @hearth-agent/plugin-sdk (and zod) to its child plugins.
import { definePlugin, defineTool, serve, ToolError, z } from '@hearth-agent/plugin-sdk';

const WEATHER = { 北京: '晴', 上海: '多云' };

const plugin = definePlugin({
  id: 'tsweather',
  name: '天气（TypeScript）',
  version: '1.0.0',
  tools: {
    query: defineTool({
      title: '查询天气',
      description: 'Get the weather of a Chinese city.',
      effect: 'read',
      input: z.object({ city: z.string().describe('城市名称') }),
      execute: ({ city }, ctx) => {
        if (!(city in WEATHER)) throw new ToolError(`不支持的城市: ${city}`);
        return { city, weather: WEATHER[city], asked_by: ctx.actor };
      },
    }),
  },
  stages: {
    pre_action: (ctx) => {
      (ctx.contextMsgs ??= []).push({ role: 'system', content: '天气数据来自 tsweather 插件。' });
      return ctx;
    },
  },
});

serve(plugin);
