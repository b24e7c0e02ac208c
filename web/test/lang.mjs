// lang.mjs: the UI follows the browser's language (zh-CN here), switches
// to English and back, and remembers the choice over a reload; the
// Chinese screenshots show the CJK fonts rendering.
import { run, url, open, shot, assert, api } from './lib.mjs';

await run(async (page) => {
  await api('POST', '/v1/sessions', {});
  await open(page, '/chat');
  await page.getByText('新对话').first().waitFor();
  // Times in the Chinese UI read 22:40, not 10:40 PM.
  const time = await page.locator('.sessions .session .small').first().innerText();
  assert(/\d{1,2}:\d{2}/.test(time) && !/AM|PM/i.test(time), 'not a Chinese time: ' + time);
  assert(await page.evaluate(() => document.documentElement.lang) === 'zh-CN', 'html lang is not zh-CN');
  await shot(page, 'chat-zh');
  await page.getByTestId('lang').click();
  await page.getByText('New chat').first().waitFor();
  await page.reload();
  await page.getByText('New chat').first().waitFor();
  assert(await page.evaluate(() => localStorage.getItem('hearth.lang')) === 'en', 'choice not remembered');
  await page.getByTestId('lang').click();
  await page.getByText('新对话').first().waitFor();
  for (const [path, name] of [['/plugins', 'plugins-zh'], ['/settings', 'settings-zh']]) {
    await page.goto(url + path);
    await page.locator('main h1').first().waitFor();
    await page.getByText('加载中…').waitFor({ state: 'hidden' });
    await shot(page, name);
  }
}, { locale: 'zh-CN' });
