// A tool whose Dynamic description answers at registration and then
// throws: Hearth must keep using the last good text (pku_test.go).
import { definePlugin, defineTool, serve, z } from '@hearth-agent/plugin-sdk';

let calls = 0;
serve(definePlugin({
  id: 'pkudesc', name: '描述', version: '1.0.0', scopes: [],
  tools: {
    now: defineTool({
      title: '现在', effect: 'read', input: z.object({}),
      description: () => {
        if (++calls > 1) throw new Error('the state is gone');
        return '注册时的描述';
      },
      execute: () => 'ok',
    }),
  },
}));
