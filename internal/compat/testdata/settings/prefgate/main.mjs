// A test plugin whose preferences live in its own kv, as a PKU harness
// plugin's do; internal/compat/settings_gate_test.go changes and resets
// them through Hearth and reads the kv to see what the plugin took.
import { definePlugin, definePreference, serve, z } from '@hearth-agent/plugin-sdk';

export const plugin = definePlugin({
  id: 'prefgate',
  name: 'Preference gate',
  description: 'Two preferences kept in kv.',
  version: '1.0.0',
  preferences: {
    // null is no value for a choice: a reset is refused.
    mode: definePreference({
      title: 'Mode', kind: 'choice',
      options: [{ value: 'calm', label: 'Calm' }, { value: 'loud', label: 'Loud' }],
      input: z.enum(['calm', 'loud']),
      get: async (c) => (await c.kv.get('pref.mode')) ?? 'calm',
      set: async (c, v) => { await c.kv.set('pref.mode', v); },
    }),
    // At most five characters; null goes back to the plugin's default.
    label: definePreference({
      title: 'Label', kind: 'text',
      input: z.string().max(5).nullable(),
      get: async (c) => (await c.kv.get('pref.label')) ?? 'dflt',
      set: async (c, v) => { await (v === null ? c.kv.delete('pref.label') : c.kv.set('pref.label', v)); },
    }),
  },
});

serve(plugin);
