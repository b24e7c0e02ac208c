// proof.test.mjs: the check that the server knows the token before the
// UI sends it again (src/api.js: proofFor, sameHex, proveServer), run by
// TestJSUnit (web/js_test.go) with node's test runner.
import { test } from 'node:test';
import assert from 'node:assert/strict';

const store = new Map([['hearth.token', 'hearth-test-token']]);
globalThis.localStorage = { getItem: () => null, setItem() {}, removeItem() {} };
globalThis.sessionStorage = { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => store.set(k, v), removeItem: (k) => store.delete(k) };
const api = await import('../src/api.js');

// The known vector, from
//   printf 'hearth-daemon-proof:%s' NONCE | openssl dgst -sha256 -hmac hearth-test-token
const nonce = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa0123456789abcdef0123456789abcdef';
const proof = '275e2e373bc655b51354637bdfa0c9436921de007fe375a3bfe12560cc96d543';

test('proofFor matches HMAC-SHA256 of the prefixed nonce', async () => {
  assert.equal(await api.proofFor('hearth-test-token', nonce), proof);
  assert.notEqual(await api.proofFor('another-token', nonce), proof);
});

test('sameHex compares every character', () => {
  assert.equal(api.sameHex(proof, proof), true);
  assert.equal(api.sameHex(proof, proof.slice(0, -1) + '4'), false);
  assert.equal(api.sameHex(proof, proof.slice(0, -1)), false);
  assert.equal(api.sameHex(proof, proof + '0'), false);
  assert.equal(api.sameHex('', proof), false);
  assert.equal(api.sameHex(proof, undefined), false);
});

test('newNonce is 64 fresh hex digits', () => {
  const a = api.newNonce();
  assert.match(a, /^[0-9a-f]{64}$/);
  assert.notEqual(a, api.newNonce());
});

// fakeFetch answers /v1/hello with answer(nonce) and records every
// request's Authorization header.
function fakeFetch(answer, seen) {
  return async (url, init = {}) => {
    const u = new URL(url, 'http://127.0.0.1:8642');
    seen.push([u.pathname, (init.headers || {}).Authorization || '']);
    if (u.pathname === '/v1/hello') {
      const body = await answer(u.searchParams.get('nonce'));
      return new Response(JSON.stringify(body), { status: body ? 200 : 404 });
    }
    if (u.pathname === '/v1/down') throw new TypeError('fetch failed');
    return new Response('{"ok":true}', { status: 200 });
  };
}

test('after a failure the token goes only to a server that proves it knows it', async () => {
  const seen = [];
  const reasons = [];
  api.onUntrusted((r) => reasons.push(r));
  // The daemon: right proof.
  globalThis.fetch = fakeFetch(async (n) => ({ pid: 1, proof: await api.proofFor('hearth-test-token', n) }), seen);
  await api.get('/v1/a');
  assert.deepEqual(seen, [['/v1/a', 'Bearer hearth-test-token']], 'no proof asked before any failure');
  await assert.rejects(api.get('/v1/down'));
  seen.length = 0;
  await api.get('/v1/b');
  assert.deepEqual(seen, [['/v1/hello', ''], ['/v1/b', 'Bearer hearth-test-token']]);

  // A squatter: a wrong proof, then none at all.
  for (const answer of [async () => ({ proof: proof }), async () => null]) {
    globalThis.fetch = fakeFetch(answer, seen);
    await assert.rejects(api.get('/v1/down'));
    seen.length = 0;
    await assert.rejects(api.get('/v1/c'), (e) => e instanceof api.UntrustedError && e.reason === 'proof');
    assert.equal(await api.recheck(), false);
    await assert.rejects(api.get('/v1/c'), api.UntrustedError);
    assert.ok(seen.every(([, auth]) => auth === ''), 'the token was sent: ' + JSON.stringify(seen));
    // The daemon is back: checking again lets requests through.
    globalThis.fetch = fakeFetch(async (n) => ({ proof: await api.proofFor('hearth-test-token', n) }), seen);
    assert.equal(await api.recheck(), true);
    await api.get('/v1/d');
  }
  assert.ok(reasons.includes('proof') && reasons.at(-1) === null, JSON.stringify(reasons));
});
