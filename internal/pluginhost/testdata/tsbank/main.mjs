// The bank plugin of conformance_test.go in TypeScript: the same tools,
// manifest and decision hook, for the same decisions.
import { definePlugin, defineTool, serve, z } from '../../../../sdk/typescript/index.js';

const payee = z.object({ to: z.string().optional(), amount: z.number().optional(), text: z.string().optional() });
const echo = (tool) => (args, ctx) => ({ tool, args, effect: ctx.effect, grant: ctx.grant ?? '', tainted: !!ctx.turn?.tainted });
const tool = (name, def) => defineTool({ description: '', input: payee, execute: echo(name), ...def });

serve(definePlugin({
  id: 'bank', name: '银行', version: '1.0.0', scopes: ['bank.example'],
  defaultModes: { money: 'ask', public: 'off' },
  instructions: 'Pay with bank__pay; never pay mallory.',
  context: ({ query }) => `balance 42, asked: ${query}`,
  tools: {
    balance: tool('balance', { title: '余额', effect: 'read', dayScoped: true }),
    pay: tool('pay', { title: '付款', effect: 'money', timeoutMs: 7000 }),
    post: tool('post', { title: '发帖', effect: 'public' }),
    transfer: tool('transfer', {
      title: '转账', effect: 'write',
      resolveEffect: ({ to }) => {
        if (to === 'mallory') throw new Error('mallory is a known scammer');
        return { effect: 'money', target: { label: `转账给 ${to}` } };
      },
    }),
    web: tool('web', { title: '网页', effect: 'read', untrusted: true }),
    note: tool('note', { title: '记录', effect: 'write', serial: true }),
    admin: tool('admin', { effect: 'write', userOnly: true }),
    unlock: tool('unlock', { effect: 'read', grant: true }),
    confirm: tool('confirm', { effect: 'read', alwaysAsk: true }),
    secret: tool('secret', { effect: 'read', onDemand: true }),
    webonly: tool('webonly', { effect: 'read', channels: ['web'] }),
  },
  decide: ({ tool, args }) => (tool === 'bank__pay' && args.amount > 100
    ? { verdict: 'deny', reason: "more than 100 needs the bank's app" }
    : { verdict: 'allow' }),
}));
