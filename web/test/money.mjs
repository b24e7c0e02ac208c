// money.mjs: what the model costs. An answer shows its tokens and its
// cost in yuan, live and after a reload; the usage page shows today's
// spending against the budgets and the totals by source, an unpriced
// call as "unpriced", not zero; the models page asks a provider for a
// source's balance and prices only when that source is opened, says
// "not supported" where there is no balance API, and shows a refused
// key's error without the key; the Chinese UI says 用量 and 未定价. Run by
// TestBrowserMoney (internal/server/ui_money_browser_test.go).
import { run, open, shot, assert } from './lib.mjs';

const keys = ['sk-deepseek-secret-0123456789abcdef', 'sk-refused-key-abcdefghijklmnop', 'sk-house-key-0123456789',
  '0123456789abcdef', 'abcdefghijklmnop'];

await run(async (page) => {
  const asked = [];
  page.on('request', (r) => {
    const m = /\/v1\/providers\/([^/]+)\/(balance|models)$/.exec(new URL(r.url()).pathname);
    if (m) asked.push(m[1] + ' ' + m[2]);
  });
  const noKeys = async (where) => {
    const text = await page.content();
    for (const k of keys) assert(!text.includes(k), `a key is on the ${where} page`);
  };

  // An answer: 1.2k tokens in, 1k of them cached, 300 out, ¥0.0033.
  await open(page, '/chat');
  await page.getByTestId('composer').fill('Make tea');
  await page.getByTestId('send').click();
  const answer = page.getByTestId('answer').last();
  await answer.getByText('The tea is ready.').waitFor();
  const usage = answer.getByTestId('answer-usage');
  await usage.waitFor();
  const want = '1.2k in (1k cached) · 300 out tokens · ¥0.0033';
  assert((await usage.innerText()).trim() === want, 'the answer says ' + JSON.stringify(await usage.innerText()));
  await shot(page, 'money-answer');
  // After a reload the answer's usage comes from its trace: the same.
  await page.reload();
  await page.getByTestId('answer').last().getByText('The tea is ready.').waitFor();
  const again = page.getByTestId('answer').last().getByTestId('answer-usage');
  await again.waitFor();
  assert((await again.innerText()).trim() === want, 'after a reload the answer says ' + JSON.stringify(await again.innerText()));

  // The usage page: today against the budgets, then by source.
  await page.locator('nav.side').getByText('Usage', { exact: true }).click();
  const today = page.getByTestId('usage-today');
  await today.waitFor();
  // 1,500 tokens of the answer and 520 of the plugin's unpriced call.
  const tokens = (await today.getByTestId('today-tokens').innerText()).replace(/\s+/g, ' ');
  assert(tokens.includes('2k of 100k'), 'today tokens: ' + tokens);
  const spent = (await today.getByTestId('today-money').innerText()).replace(/\s+/g, ' ');
  assert(spent.includes('¥0.0033 of ¥1.00'), 'today money: ' + spent);
  assert((await today.getByTestId('usage-budgets').innerText()).includes('50k tokens'), 'the session budget is not shown');
  const rows = page.getByTestId('usage-row');
  await page.getByTestId('usage-by').selectOption('source');
  await page.getByRole('columnheader', { name: 'Source' }).waitFor();
  const house = rows.filter({ hasText: 'house' });
  const local = rows.filter({ hasText: 'local' });
  await house.waitFor();
  assert(await rows.count() === 2, 'by source: ' + await rows.count() + ' rows');
  assert((await house.getByTestId('usage-cost').innerText()).trim() === '¥0.0033', 'house costs ' + await house.getByTestId('usage-cost').innerText());
  assert((await local.getByTestId('usage-cost').innerText()).trim() === 'unpriced', 'the unpriced row says ' + await local.getByTestId('usage-cost').innerText());
  const sum = (await page.getByTestId('usage-sum').innerText()).replace(/\s+/g, ' ');
  assert(sum.includes('¥0.0033 + 1 unpriced') && sum.includes('2'), 'totals: ' + sum);
  // By conversation: each session with its channel and chat.
  await page.getByTestId('usage-by').selectOption('session');
  const label = page.getByTestId('session-label').first();
  await label.waitFor();
  assert((await label.innerText()).startsWith('web/'), 'the session row is labelled ' + await label.innerText());
  await page.getByTestId('usage-by').selectOption('plugin');
  await rows.filter({ hasText: 'notes' }).waitFor();
  await rows.filter({ hasText: 'you (no plugin)' }).waitFor();
  await shot(page, 'money-usage');

  // The models page asks no provider until a source is opened.
  await page.locator('nav.side').getByText('Models', { exact: true }).click();
  const card = (name) => page.getByTestId('provider').filter({ has: page.locator('strong', { hasText: new RegExp('^' + name + '$') }) });
  await card('ds').waitFor();
  await card('house').waitFor();
  assert(asked.length === 0, 'the page load asked the providers: ' + asked.join(', '));
  await card('ds').getByTestId('source-more').locator('summary').click();
  const ds = card('ds');
  await ds.getByTestId('balance-total').waitFor();
  const bal = (await ds.getByTestId('balance').innerText()).replace(/\s+/g, ' ');
  assert(bal.includes('¥110.00') && bal.includes('¥100.00 topped up') && bal.includes('¥10.00 granted'), 'balance: ' + bal);
  const chatRow = ds.getByTestId('model-row').filter({ hasText: 'deepseek-chat' });
  await chatRow.waitFor();
  const cells = (await chatRow.locator('td').allInnerTexts()).map((s) => s.trim());
  assert(JSON.stringify(cells.slice(1)) === JSON.stringify(['128k', '¥2', '¥0.2', '¥3']), 'deepseek-chat: ' + JSON.stringify(cells));
  assert((await ds.getByTestId('model-row').filter({ hasText: 'deepseek-new' }).innerText()).includes('unpriced'), 'the new model is not unpriced');
  // DeepSeek's peak hours are said where its prices are.
  const peak = (await ds.getByTestId('model-row').filter({ hasText: 'deepseek-flash' }).getByTestId('peak').innerText()).trim();
  assert(peak === '×2 Monday to Friday 9–12, 14–18 (UTC+8)', 'deepseek-flash peak: ' + peak);
  assert(await chatRow.getByTestId('peak').count() === 0, 'deepseek-chat has a peak note');
  assert(asked.sort().join(', ') === 'ds balance, ds models', 'opening ds asked: ' + asked.join(', '));
  await shot(page, 'money-models');
  // A refused key: the provider's error, without the key.
  await card('dsbad').getByTestId('source-more').locator('summary').click();
  await card('dsbad').getByTestId('balance-error').waitFor();
  await card('dsbad').getByTestId('models-error').waitFor();
  // No balance API: said so.
  await card('house').getByTestId('source-more').locator('summary').click();
  const unsupported = card('house').getByTestId('balance-unsupported');
  await unsupported.waitFor();
  assert((await unsupported.innerText()).startsWith('Not supported'), 'house balance: ' + await unsupported.innerText());
  await noKeys('models');

  // In Chinese.
  await page.getByTestId('lang').click();
  await card('house').getByText('不支持', { exact: false }).waitFor();
  await page.locator('nav.side').getByText('用量', { exact: true }).click();
  await page.getByTestId('usage-by').selectOption('source');
  await page.getByRole('columnheader', { name: '模型来源' }).waitFor();
  assert((await rows.filter({ hasText: 'local' }).getByTestId('usage-cost').innerText()).trim() === '未定价', 'the unpriced row in Chinese');
  await page.getByText('今天', { exact: true }).waitFor();
  await shot(page, 'money-usage-zh');
  await noKeys('usage');
});
