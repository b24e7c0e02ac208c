// A TypeScript plugin whose on_input handler is a guard (guardStages)
// and whose process dies on the message "crash".
import { definePlugin, serve } from '@hearth-agent/plugin-sdk';

serve(definePlugin({
  id: 'tsinputguard', name: 'TypeScript input guard', version: '1.0.0', tools: {},
  guardStages: ['on_input'],
  stages: {
    on_input: (ctx) => {
      if (ctx.rawMessage === 'crash') process.exit(3);
      return ctx;
    },
  },
}));
