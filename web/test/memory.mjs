// memory.mjs: an entity and a document that two scopes hold under one
// name are both listed with their scope and writer; the scope filter
// narrows the list; showing, renaming, typing, hiding and deleting one
// work on it alone (no call is answered 409 "ambiguous"); the words are
// Chinese in the Chinese UI. Run by TestBrowserMemoryScopes
// (internal/server/ui_memory_browser_test.go).
import { run, open, shot, api, assert } from './lib.mjs';

await run(async (page) => {
  const ambiguous = [];
  page.on('response', (r) => { if (r.status() === 409) ambiguous.push(r.request().method() + ' ' + r.url()); });
  page.on('dialog', (d) => d.accept());

  await open(page, '/memory');
  const items = page.getByTestId('entity-item');
  const alice = items.filter({ hasText: 'Alice' });
  const mine = alice.filter({ hasText: 'qq · 12345' });
  const theirs = alice.filter({ hasText: 'Group qq · 678' });
  await mine.waitFor();
  await theirs.waitFor();
  assert(await alice.count() === 2, 'Alice listed ' + await alice.count() + ' times');
  assert((await mine.getByTestId('who').innerText()).includes('You'), 'the private Alice is not written by You');
  assert((await theirs.getByTestId('who').innerText()).includes('notes'), 'the group Alice is not written by notes');
  await items.filter({ hasText: 'Bob' }).getByText('Global').waitFor();
  await shot(page, 'memory-scopes');

  // The filter offers the scopes present and narrows the list to one.
  const filter = page.getByTestId('scope-filter');
  const offered = await filter.locator('option').allInnerTexts();
  for (const want of ['All scopes', 'Global', 'qq · 12345', 'Group qq · 678']) {
    assert(offered.includes(want), `the filter offers ${JSON.stringify(offered)}, not ${want}`);
  }
  await filter.selectOption('chat:qq/group:678');
  await items.filter({ hasText: 'Bob' }).waitFor({ state: 'detached' });
  await items.filter({ hasText: 'ACME' }).waitFor();
  assert(await alice.count() === 1 && await theirs.count() === 1, 'the filter left the wrong entities');
  await filter.selectOption('');
  await items.filter({ hasText: 'Bob' }).waitFor();

  // Show the group's Alice, then delete it: the private one is left.
  await theirs.click();
  const card = page.getByTestId('entity');
  await card.getByText('works_at').waitFor();
  assert(await card.getByText('likes').count() === 0, "the group's Alice shows the private relation");
  await card.getByTestId('delete-entity').click();
  await card.waitFor({ state: 'detached' });
  await theirs.waitFor({ state: 'detached' });
  assert(await alice.count() === 1, 'deleting one Alice left ' + await alice.count());
  const left = await api('GET', '/v1/memory/entities/Alice');
  assert(left.entity.scope === 'user:qq/12345' && left.entity.writer === '', 'Alice left: ' + JSON.stringify(left.entity));

  // Rename the one left.
  await mine.click();
  await card.getByText('likes').waitFor();
  await card.locator('input').first().fill('Alice Chen');
  await card.getByRole('button', { name: 'Rename' }).click();
  await card.getByRole('heading', { name: 'Alice Chen' }).waitFor();
  // Correct what she is.
  await card.getByTestId('entity-type').fill('person');
  await card.getByRole('button', { name: 'Set type' }).click();
  await items.filter({ hasText: 'Alice Chen' }).getByText('person').waitFor();
  await shot(page, 'memory-entity');
  const chen = await api('GET', '/v1/memory/entities/' + encodeURIComponent('Alice Chen'));
  assert(chen.entity.type === 'person' && chen.entity.scope === 'user:qq/12345', 'Alice Chen: ' + JSON.stringify(chen.entity));
  // Hide Carol (global) until she is mentioned again.
  await items.filter({ hasText: 'Carol' }).click();
  await card.getByRole('heading', { name: 'Carol' }).waitFor();
  await card.getByTestId('hide-entity').click();
  await items.filter({ hasText: 'Carol' }).waitFor({ state: 'detached' });

  // Documents: two "trip"s, one per scope; delete the group's.
  await page.getByTestId('tab-docs').click();
  const docs = page.getByTestId('doc-item');
  await docs.filter({ hasText: 'Trip (private)' }).waitFor();
  assert(await docs.filter({ hasText: 'Trip (group)' }).filter({ hasText: 'notes' }).count() === 1, 'the group trip is not listed with its writer');
  await docs.filter({ hasText: 'Trip (group)' }).click();
  const doc = page.getByTestId('doc');
  await doc.locator('strong', { hasText: 'group' }).waitFor();
  await shot(page, 'memory-docs-scopes');
  await page.getByTestId('delete-doc').click();
  await doc.waitFor({ state: 'detached' });
  await docs.filter({ hasText: 'Trip (group)' }).waitFor({ state: 'detached' });
  await docs.filter({ hasText: 'Trip (private)' }).click();
  await doc.getByText('Just the two of us.').waitFor();

  // The Chinese UI names scopes and writers in Chinese.
  await page.evaluate(() => localStorage.setItem('hearth.lang', 'zh'));
  await page.reload();
  await items.filter({ hasText: 'Bob' }).getByText('全局').waitFor();
  await items.filter({ hasText: 'Alice Chen' }).getByText('我', { exact: true }).waitFor();
  await shot(page, 'memory-scopes-zh');

  assert(!ambiguous.length, 'answered 409: ' + ambiguous.join(', '));
});
