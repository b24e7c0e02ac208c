// money.test.mjs: how amounts of money and counts of tokens are written
// (src/money.js), run by TestJSUnit (web/js_test.go).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { money, peakHours, price, tokens, usageOf } from '../src/money.js';

test('money writes the currency and sensible digits', () => {
  const cases = [
    [0.0021, 'CNY', '¥0.0021'],
    [0.0004, 'USD', '$0.0004'],
    [0.0033000000000000004, 'CNY', '¥0.0033'], // float noise from the API
    [0.00042719, 'usd', '$0.00043'],
    [0.5, 'USD', '$0.50'],
    [0.051234, 'CNY', '¥0.051'],
    [0.1 + 0.2, 'CNY', '¥0.30'],
    [1, 'CNY', '¥1.00'],
    [110, 'CNY', '¥110.00'],
    [12.345678, 'EUR', '€12.35'],
    [3.5, 'CHF', '3.50 CHF'],
    [0, 'USD', '$0.00'],
    [0.0000002, 'USD', '<$0.000001'],
    [-2.5, 'USD', '-$2.50'],
  ];
  for (const [a, c, want] of cases) assert.equal(money(a, c), want, `${a} ${c}`);
});

test('money without a currency is unknown, not zero', () => {
  for (const [a, c] of [[0, ''], [0.3, ''], [1, undefined], [undefined, 'USD'], [NaN, 'CNY'], [null, 'CNY']]) {
    assert.equal(money(a, c), '', `${a} ${c}`);
  }
});

test('price keeps what is given, without noise', () => {
  assert.equal(price(0.2, 'CNY'), '¥0.2');
  assert.equal(price(2, 'CNY'), '¥2');
  assert.equal(price(0.075, 'USD'), '$0.075');
  assert.equal(price(0.1 + 0.2, 'USD'), '$0.3');
  assert.equal(price(1.25, ''), '$1.25');
  assert.equal(price(0, 'CNY'), '¥0');
  assert.equal(price(undefined, 'CNY'), '');
});

test('tokens are counted short', () => {
  const cases = [[0, '0'], [7, '7'], [999, '999'], [1000, '1k'], [1200, '1.2k'], [1250, '1.3k'], [9999, '10k'],
    [12345, '12.3k'], [99960, '100k'], [123456, '123k'], [999499, '999k'], [999500, '1M'], [1234567, '1.2M'],
    [undefined, '0'], [-5, '0'], ['42', '42']];
  for (const [n, want] of cases) assert.equal(tokens(n), want, String(n));
});

test('usageOf reads a turn.finished usage and a trace alike', () => {
  assert.deepEqual(usageOf({ prompt_tokens: 1200, completion_tokens: 300, cached_tokens: 1000, cost: 0.0033, currency: 'CNY' }),
    { input: 1200, cached: 1000, output: 300, cost: 0.0033, currency: 'CNY' });
  assert.deepEqual(usageOf(null, { usage: { input_tokens: 1200, output_tokens: 300, cached_tokens: 1000 }, cost: { amount: 0.0033, currency: 'CNY' } }),
    { input: 1200, cached: 1000, output: 300, cost: 0.0033, currency: 'CNY' });
  // Unpriced: tokens only.
  assert.deepEqual(usageOf({ prompt_tokens: 10, completion_tokens: 5, cached_tokens: 0 }),
    { input: 10, cached: 0, output: 5, cost: null, currency: '' });
  assert.deepEqual(usageOf(null, { usage: { input_tokens: 10, output_tokens: 5 } }),
    { input: 10, cached: 0, output: 5, cost: null, currency: '' });
  // A cost without a currency is no cost.
  assert.equal(usageOf({ prompt_tokens: 10, completion_tokens: 5, cost: 0.1 }).cost, null);
  // Nothing used, nothing shown.
  assert.equal(usageOf({ prompt_tokens: 0, completion_tokens: 0 }), null);
  assert.equal(usageOf(null, { usage: null }), null);
  assert.equal(usageOf(undefined, undefined), null);
});

test('peakHours says when a price is raised, and by how much', () => {
  assert.equal(peakHours(undefined), null);
  assert.deepEqual(peakHours({ multiplier: 2, utcOffsetMinutes: 480, weekdays: [5, 1, 2, 3, 4], hours: [[9, 12], [14, 18]] }),
    { x: 2, hours: '9–12, 14–18', weekdays: true, zone: 'UTC+8' });
  assert.deepEqual(peakHours({ multiplier: 1.5, utcOffsetMinutes: -330, weekdays: [0, 6], hours: [[20, 24]] }),
    { x: 1.5, hours: '20–24', weekdays: false, zone: 'UTC−5:30' });
});

