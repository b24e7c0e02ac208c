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
  // A phone-sized screen: the code block, the table and a long unbroken
  // line scroll or wrap inside their own boxes; the page never grows
  // wider than the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByTestId('answer').last().locator('pre code').waitFor();
  const fits = async (what) => {
    const [sw, iw, wide] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth,
      // The main column scrolls on its own: it must not scroll sideways.
      [...document.querySelectorAll('.content, .chat, .thread, .messages, .composer')]
        .filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => `${e.className} ${e.scrollWidth}>${e.clientWidth}`)]);
    assert(sw <= iw, `${what}: the page is ${sw} px wide on a ${iw} px screen`);
    assert(!wide.length, `${what}: wider than the screen: ${wide.join(', ')}`);
    const send = await page.getByTestId('send').boundingBox();
    assert(send && send.x >= 0 && send.x + send.width <= iw, `${what}: the send button is off the screen: ${JSON.stringify(send)}`);
  };
  await fits('answer with a code block');
  // The scripted answer's lines are short: lengthen them in place, as a
  // tool's JSON result or a long command would be.
  await page.getByTestId('answer').last().evaluate((a) => {
    const long = '{"result":"' + 'x'.repeat(300) + '"}';
    a.querySelector('pre code').textContent += '\n' + long;
    const p = document.createElement('p');
    p.textContent = long;
    a.querySelector('.md').append(p);
  });
  await fits('a code block with a long line');
  const long = '{"result":"' + 'x'.repeat(300) + '"}';
  await page.getByTestId('composer').fill(long);
  await page.getByTestId('send').click();
  await page.getByTestId('user-message').filter({ hasText: 'xxxxxxxx' }).waitFor();
  await fits('a long unbroken line');
  await shot(page, 'chat-phone');
});
