// knowledge.mjs: entries are listed under their folders; "wifi" from the
// owner and "wifi" from a plugin in a group chat are two entries, the
// group's with its scope and writer; the scope filter narrows the list; a
// search ranks its hits, each naming its file; deleting the group's wifi
// leaves the owner's (no call is answered 409). Run by
// TestBrowserKnowledgeScopes (internal/server/ui_memory_browser_test.go).
import { run, open, shot, api, assert } from './lib.mjs';

await run(async (page) => {
  const conflicts = [];
  page.on('response', (r) => { if (r.status() === 409) conflicts.push(r.request().method() + ' ' + r.url()); });
  page.on('dialog', (d) => d.accept());

  await open(page, '/knowledge');
  const items = page.getByTestId('kb-item');
  await page.getByTestId('kb-folder').filter({ hasText: 'recipes/' }).waitFor();
  await items.filter({ hasText: '红烧肉' }).waitFor();
  const wifi = items.filter({ hasText: 'wifi' });
  await wifi.nth(1).waitFor();
  assert(await wifi.count() === 2, 'wifi listed ' + await wifi.count() + ' times');
  const theirs = wifi.filter({ hasText: 'Group qq · 678' }).filter({ hasText: 'notes' });
  assert(await theirs.count() === 1, "the group's wifi is not listed with its scope and writer");
  assert(await wifi.filter({ hasText: 'Global' }).filter({ hasText: 'You' }).count() === 1, "the owner's wifi is not listed with its scope and writer");
  await shot(page, 'knowledge-folders');

  // The filter narrows the list to the group's entries.
  await page.getByTestId('scope-filter').selectOption('chat:qq/group:678');
  await items.filter({ hasText: '红烧肉' }).waitFor({ state: 'detached' });
  await theirs.waitFor();
  assert(await items.count() === 1, 'the filter left ' + await items.count() + ' entries');
  await page.getByTestId('scope-filter').selectOption('');
  await items.filter({ hasText: '红烧肉' }).waitFor();

  // A search: hits best first, each naming its file.
  await page.getByTestId('kb-search').fill('红烧肉 冰糖');
  const hit = page.getByTestId('kb-hit').first();
  await hit.getByTestId('kb-file').filter({ hasText: 'recipes/红烧肉.md' }).waitFor();
  await shot(page, 'knowledge-search');
  await hit.click();
  await page.waitForFunction(() => [...document.querySelectorAll('textarea')].some((x) => x.value.includes('冰糖')));
  await page.getByTestId('kb-search').fill('');

  // Open the group's wifi, then delete it: the owner's is left.
  await theirs.click();
  await page.waitForFunction(() => [...document.querySelectorAll('textarea')].some((x) => x.value.includes('café')));
  await page.getByTestId('kb-delete').click();
  await theirs.waitFor({ state: 'detached' });
  assert(await wifi.count() === 1, 'deleting one wifi left ' + await wifi.count());
  const mine = await api('GET', '/v1/knowledge/wifi');
  assert(mine.content.includes('router'), "the owner's wifi: " + JSON.stringify(mine));
  await wifi.click();
  await page.waitForFunction(() => [...document.querySelectorAll('textarea')].some((x) => x.value.includes('router')));

  assert(!conflicts.length, 'answered 409: ' + conflicts.join(', '));
});
