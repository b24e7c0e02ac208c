// pages.mjs: screenshots of the plugins, memory, knowledge and trace
// pages with data in them, on a desk and on a phone; each page renders
// without errors.
import { run, open, shot, api, assert } from './lib.mjs';

await run(async (page) => {
  await open(page, '/plugins');
  await page.getByTestId('plugin').first().waitFor();
  await shot(page, 'plugins');

  await open(page, '/memory');
  await page.getByText('Alice').first().click();
  await page.getByTestId('entity').getByText('works_at').waitFor();
  await shot(page, 'memory');
  // Robert is Bob: merge, then forget one of Bob's relations.
  await page.locator('.list a', { hasText: 'Robert' }).click();
  const card = page.getByTestId('entity');
  await card.getByRole('heading', { name: 'Robert' }).waitFor();
  await card.locator('input').nth(1).fill('Bob');
  await card.getByRole('button', { name: 'Merge' }).click();
  await card.getByRole('heading', { name: 'Bob' }).waitFor();
  await card.getByText('lives_in').waitFor();
  await card.locator('li', { hasText: 'knows' }).getByTestId('delete-relation').click();
  await card.getByText('knows').waitFor({ state: 'detached' });
  const bob = await api('GET', '/v1/memory/entities/Bob');
  assert(bob.relations.length === 1 && bob.relations[0].relation === 'lives_in', 'Bob: ' + JSON.stringify(bob.relations));

  // The document memory: list, search, read, delete.
  await page.getByTestId('tab-docs').click();
  await page.getByTestId('doc-item').filter({ hasText: 'Dumplings' }).waitFor();
  await page.getByTestId('doc-search').fill('Hangzhou');
  await page.getByTestId('doc-item').filter({ hasText: 'Dumplings' }).waitFor({ state: 'detached' });
  await page.getByTestId('doc-item').filter({ hasText: 'Trip to Hangzhou' }).click();
  await page.getByTestId('doc').locator('strong', { hasText: 'April' }).waitFor();
  await shot(page, 'memory-docs');
  page.once('dialog', (d) => d.accept());
  await page.getByTestId('delete-doc').click();
  await page.getByTestId('doc').waitFor({ state: 'detached' });
  const left = await api('GET', '/v1/memory/docs');
  assert(left.docs.length === 1 && left.docs[0].id === 'recipe', 'docs after delete: ' + JSON.stringify(left.docs));

  await open(page, '/knowledge');
  await page.getByText('wifi').first().click();
  await page.waitForFunction(() => [...document.querySelectorAll('textarea')].some((x) => x.value.includes('password')));
  await shot(page, 'knowledge');
  // Write a new entry and read it back through the API.
  await page.getByRole('button', { name: 'New document' }).click();
  const editor = page.locator('form.editor');
  await editor.locator('input').fill('tea');
  await editor.locator('textarea').fill('# Tea\n\nGreen, not too hot. 绿茶。\n\n| cup | °C |\n|---|---|\n| green | 80 |\n\n<img src=x onerror=alert(1)>');
  // The preview renders Markdown as the chat does: sanitised, raw HTML as text.
  await page.getByTestId('tab-preview').click();
  const preview = page.getByTestId('kb-preview');
  await preview.getByRole('heading', { name: 'Tea' }).waitFor();
  await preview.locator('table td', { hasText: 'green' }).waitFor();
  assert(await preview.locator('img').count() === 0, 'raw HTML rendered in the preview');
  await shot(page, 'knowledge-preview');
  await page.getByTestId('tab-edit').click();
  await editor.getByRole('button', { name: 'Save' }).click();
  await page.locator('.list a', { hasText: 'tea' }).waitFor();
  const tea = await api('GET', '/v1/knowledge/tea');
  assert(tea.content.includes('绿茶'), 'knowledge entry: ' + JSON.stringify(tea));

  const traces = await api('GET', '/v1/traces');
  assert(traces.traces.length > 0, 'no trace recorded');
  // The list says what its numbers are.
  await open(page, '/traces');
  if (traces.traces[0].usage) {
    const label = await page.getByTestId('trace-tokens').first().innerText();
    assert(/Tokens in\/out\/cached \d+ \/ \d+ \/ \d+/.test(label), 'trace card tokens unlabelled: ' + label);
  }
  await open(page, '/traces/' + traces.traces[0].id);
  await page.getByTestId('trace').locator('table').first().waitFor();
  await shot(page, 'trace');

  await page.emulateMedia({ colorScheme: 'dark' });
  await open(page, '/settings');
  await page.getByTestId('settings-weather').waitFor();
  await shot(page, 'settings-dark');
  await page.emulateMedia({ colorScheme: 'light' });

  await page.setViewportSize({ width: 390, height: 800 });
  await open(page, '/plugins');
  await page.getByTestId('plugin').first().waitFor();
  await shot(page, 'plugins-phone');
});
