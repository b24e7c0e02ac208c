// token.mjs: without a token the UI explains `hearth token` (in English
// and Chinese); with #token=... it stores the token, removes it from the
// address bar, and the API answers.
import { run, url, token, open, shot, assert } from './lib.mjs';

await run(async (page) => {
  await page.goto(url + '/');
  await page.getByText('hearth token', { exact: true }).waitFor();
  assert(await page.getByText('Hearth needs its token').first().isVisible(), 'English explanation missing');
  assert(await page.getByText('Hearth 需要访问令牌').first().isVisible(), 'Chinese line missing');
  await shot(page, 'token-missing');

  await open(page, '/chat');
  await page.getByTestId('composer').waitFor();
  assert(!page.url().includes('token='), 'token left in the address bar: ' + page.url());
  const stored = await page.evaluate(() => localStorage.getItem('hearth.token'));
  assert(stored === token, 'token not stored');
  // A reload keeps working without the fragment.
  await page.reload();
  await page.getByTestId('composer').waitFor();
  // A wrong token shows the explanation again.
  await page.evaluate(() => localStorage.setItem('hearth.token', 'wrong'));
  await page.reload();
  await page.getByText('The token was refused', { exact: false }).waitFor();
});
