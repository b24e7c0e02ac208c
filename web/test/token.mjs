// token.mjs: without a token the UI explains `hearth token` (in English
// and Chinese) and offers a form to paste it; with #token=... it keeps the
// token in this tab's sessionStorage (never localStorage), removes it from
// the address bar, and the API answers. A new tab without the fragment
// asks again; a wrong pasted token is refused, the right one gets in;
// after a failure, a server without the proof of GET /v1/hello gets no token.
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

  // After a failure, a server that cannot prove it knows the token (a
  // port squatter, faked here) never gets it: the page warns instead.
  await tab.route('**/v1/sessions', (r) => r.abort());
  await tab.getByTestId('new-chat').click();
  await tab.locator('.error').first().waitFor();
  await tab.unroute('**/v1/sessions');
  let proofAsked = false;
  const leaked = [];
  await tab.route('**/v1/hello?*', (r) => { proofAsked = true; r.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ pid: 1, proof: '0'.repeat(64) }) }); });
  tab.on('request', (r) => { if (proofAsked && r.headers().authorization) leaked.push(r.url()); });
  await tab.getByTestId('new-chat').click();
  await tab.getByTestId('untrusted').getByText('the token was not sent').first().waitFor();
  await tab.getByTestId('untrusted').getByText('令牌没有发送').waitFor();
  await shot(tab, 'token-untrusted');
  assert(!leaked.length, 'the token went to a server without proof: ' + leaked.join(', '));
  // The real daemon proves itself: checking again gets back in.
  await tab.unroute('**/v1/hello?*');
  await tab.getByTestId('untrusted').getByRole('button').click();
  await tab.getByTestId('composer').waitFor();
  await tab.close();

  // A token the server refuses later shows the explanation again.
  await page.evaluate(() => sessionStorage.setItem('hearth.token', 'wrong'));
  await page.reload();
  await page.getByText('The token was refused', { exact: false }).waitFor();
});
