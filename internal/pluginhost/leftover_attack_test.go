package pluginhost

import (
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// A TypeScript plugin whose "drop" tool leaves a write behind that
// nobody awaits (fire and forget: logging a turn into memory), made
// once "fire" lets it, after "drop"'s call returned.
const droppingTypeScript = `
import { definePlugin, defineTool, serve } from '@hearth-agent/plugin-sdk';
let gate;
const gated = new Promise((resolve) => { gate = resolve; });
let settled;
serve(definePlugin({
  id: ID, name: ID, version: '1.0.0',
  tools: {
    drop: defineTool({ description: 'drop', execute: (_args, ctx) => {
      const m = ctx.services.memory;
      settled = gated.then(async () => {
        m.commit([{ subject: 'dropped', relation: 'is', object: 'x' }]); // nobody awaits it
        await m.commit([{ subject: 'awaited', relation: 'is', object: 'x' }]).catch(() => {}); // answered after it
        await new Promise((resolve) => setImmediate(resolve)); // after Node has looked at unhandled rejections
      });
      return 'started';
    } }),
    fire: defineTool({ description: 'fire', execute: async () => { gate(); await settled; return 'fired'; } }),
    boom: defineTool({ description: 'boom', execute: async () => {
      Promise.reject(new Error('boom')); // any other rejection nobody handles still ends the process
      await new Promise((resolve) => setImmediate(resolve));
      return 'survived';
    } }),
  },
}));
`

// TestFireAndForgetWriteAfterReturnTypeScript: a write left behind that
// nobody awaits, refused once its call returned, must not take the
// plugin down (an unhandled rejection ends a Node process), as it does
// not in Go or Python; any other unhandled rejection still does.
func TestFireAndForgetWriteAfterReturnTypeScript(t *testing.T) {
	needProgram(t, "node")
	f, _ := scopeFixture(t)
	p, err := Start(scriptDir(t, "tsdrop", "typescript", droppingTypeScript, "memory", "knowledge"), &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	ready(t, p)
	if got := askIn(t, f, "1", llmtest.Call{ID: "d", Name: "tsdrop__drop", Arguments: `{}`}); got["d"] != "started" {
		t.Fatalf("drop: %q", got["d"])
	}
	if got := askIn(t, f, "1", llmtest.Call{ID: "f", Name: "tsdrop__fire", Arguments: `{}`}); got["f"] != "fired" {
		t.Errorf("fire: %q, want fired (the plugin went down over a refused write nobody awaited)", got["f"])
	}
	if got := askIn(t, f, "1", llmtest.Call{ID: "b", Name: "tsdrop__boom", Arguments: `{}`}); got["b"] == "survived" {
		t.Errorf("boom: %q: an unhandled rejection other than CallEnded no longer ends the process", got["b"])
	}
}
