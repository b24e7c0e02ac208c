// token.mjs: without a token the UI explains `hearth token` (in English
// and Chinese) and offers a form to paste it; with #token=... it keeps the
// token in this tab's sessionStorage (never localStorage), removes it from
// the address bar, and the API answers. A new tab without the fragment
// asks again; a wrong pasted token is refused, the right one gets in.
import { run, url, token, open, shot, assert } from './lib.mjs';

await run(async (page, context) => {
  // An older UI kept the token in localStorage: it is removed.
  await page.goto(url + '/');
  await page.evaluate(() => localStorage.setItem('hearth.token', 'old'));
  await page.reload();
  await page.locator('pre.cmd', { hasText: 'hearth token' }).waitFor();
  // Commands in the explanations show as code, not between backticks.
  assert(!(await page.locator('.auth').innerText()).includes('`'), 'literal backticks on the token page');
  await page.getByTestId('token-body').locator('code', { hasText: 'hearth serve' }).waitFor();
  assert(await page.getByText('Hearth needs its token').first().isVisible(), 'English explanation missing');
  assert(await page.getByText('Hearth 需要访问令牌').first().isVisible(), 'Chinese line missing');
  assert(await page.evaluate(() => localStorage.getItem('hearth.token')) === null, 'old localStorage token kept');
  await page.getByTestId('token-form').waitFor();
  await shot(page, 'token-missing');

  await open(page, '/chat');
  await page.getByTestId('composer').waitFor();
  assert(!page.url().includes('token='), 'token left in the address bar: ' + page.url());
  assert(await page.evaluate(() => sessionStorage.getItem('hearth.token')) === token, 'token not in sessionStorage');
  assert(await page.evaluate((tok) => Object.keys(localStorage).every((k) => !localStorage.getItem(k).includes(tok)), token),
    'token in localStorage');
  // A reload keeps working without the fragment (same tab).
  await page.reload();
  await page.getByTestId('composer').waitFor();

  // A new tab (a bare bookmark) has no token: the paste form.
  const tab = await context.newPage();
  await tab.goto(url + '/chat');
  await tab.getByTestId('token-input').fill('wrong-token');
  await tab.getByTestId('token-form').getByRole('button').click();
  await tab.getByTestId('token-wrong').waitFor();
  assert(await tab.evaluate(() => sessionStorage.getItem('hearth.token')) === null, 'a wrong token was kept');
  await shot(tab, 'token-wrong');
  await tab.getByTestId('token-input').fill(token);
  await tab.getByTestId('token-form').getByRole('button').click();
  await tab.getByTestId('composer').waitFor();
  assert(await tab.evaluate(() => sessionStorage.getItem('hearth.token')) === token, 'pasted token not kept');
  await tab.close();

  // A token the server refuses later shows the explanation again.
  await page.evaluate(() => sessionStorage.setItem('hearth.token', 'wrong'));
  await page.reload();
  await page.getByText('The token was refused', { exact: false }).waitFor();
});
