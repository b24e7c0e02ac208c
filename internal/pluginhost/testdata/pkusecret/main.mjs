// Speaks the protocol by hand (no SDK, which would refuse this itself):
// its manifest declares a preference named like a secret, which Hearth
// must refuse (pku_test.go).
import { createInterface } from 'node:readline';

const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
for await (const line of createInterface({ input: process.stdin })) {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') {
    send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: 1, sdkVersion: 'raw', name: 'pkusecret', manifest: {
      id: 'pkusecret', name: '密钥', version: '1.0.0', scopes: [],
      preferences: { api_token: { title: '令牌', kind: 'text', schema: { type: 'string' } } },
    } } });
  } else if (msg.id !== undefined && msg.method) {
    send({ jsonrpc: '2.0', id: msg.id, result: msg.method === '$/ping' ? 'pong' : {} });
  }
}
