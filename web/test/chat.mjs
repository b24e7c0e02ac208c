// chat.mjs: send a message and see the streamed answer rendered as
// Markdown (a table and a code block), with the model's HTML and
// javascript: link made harmless; the reasoning is collapsible.
import { run, open, shot, assert } from './lib.mjs';

await run(async (page) => {
  await open(page, '/chat');
  await page.getByTestId('composer').fill('Show me a table');
  await page.getByTestId('send').click();
  await page.getByTestId('user-message').filter({ hasText: 'Show me a table' }).waitFor();
  const answer = page.getByTestId('answer').last();
  await answer.locator('table td', { hasText: 'Beijing' }).waitFor();
  await answer.locator('pre code', { hasText: 'fmt.Println' }).waitFor();
  await answer.locator('details.reasoning').waitFor();
  // The Go block is coloured; the coloured code is still only text.
  await answer.locator('pre code.hljs .hljs-string', { hasText: '"hi"' }).waitFor();
  assert(await answer.locator('pre code *:not(span)').count() === 0, 'highlighted code holds elements other than spans');
  assert(await answer.locator('img[onerror], script, [onclick]').count() === 0, 'model HTML kept an event handler or script');
  const hrefs = await answer.locator('.md a').evaluateAll((as) => as.map((a) => [a.getAttribute('href'), a.rel]));
  assert(!hrefs.some(([h]) => h && /^javascript:/i.test(h)), 'javascript: link kept: ' + JSON.stringify(hrefs));
  assert(hrefs.every(([h, rel]) => !h || rel.includes('noopener')), 'link without noopener: ' + JSON.stringify(hrefs));
  // The session shows in the list, and the answer survives a reload.
  await page.locator('.sessions .session').first().waitFor();
  await shot(page, 'chat');
  await page.reload();
  await page.getByTestId('answer').last().locator('table td', { hasText: 'Beijing' }).waitFor();
  await page.getByTestId('answer').last().locator('details.reasoning').waitFor();
  // Its trace is linked, and opens.
  await page.getByTestId('answer').last().getByTestId('trace-link').click();
  await page.getByTestId('trace').getByText('Show me a table').first().waitFor();
  await page.goBack();
  // A phone-sized screen.
  await page.setViewportSize({ width: 390, height: 800 });
  await shot(page, 'chat-phone');
});
