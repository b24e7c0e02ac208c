// Calls the SDK's openAITranscribe against the loopback server whose URL
// is the first argument, once where it answers and once where it fails,
// and prints both outcomes as JSON (internal/compat/pku_ts_test.go).
import { openAITranscribe } from '@hearth-agent/plugin-sdk';

const audio = { file: new Blob(['RIFF0000WAVE'], { type: 'audio/wav' }), uri: 'file:///a.wav', name: 'a.wav', mimeType: 'audio/wav', durationMs: 10 };
const config = (path) => ({ baseURL: process.argv[2] + path, model: 'sense', credential: 'k-123', fetch, webSocket: () => { throw new Error('no'); } });
const ok = await openAITranscribe(config('/v1/'), audio);
let failed;
try { await openAITranscribe(config('/bad'), audio); } catch (e) { failed = e.message; }
process.stdout.write(JSON.stringify({ ok, failed }));
