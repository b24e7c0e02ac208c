// prompts.mjs: the MCP servers' prompts in the composer: typing / offers
// them, filtered as you type; one without arguments is sent at once, one
// with arguments opens a form (its required field marked), and arguments
// typed after the command as name=value are used as they are.
// The server's fake source (prompts_browser_test.go) offers
// mcp-x:hello and mcp-x:review(code required, lang).
import { run, open, shot, assert } from './lib.mjs';

await run(async (page) => {
  await open(page, '/chat');
  const composer = page.getByTestId('composer');
  await composer.fill('/');
  await page.getByTestId('prompt-menu').waitFor();
  assert(await page.getByTestId('prompt-option').count() === 2, 'the menu does not offer both prompts');
  await composer.fill('/mcp-x:h');
  await page.getByTestId('prompt-option').filter({ hasText: 'Say hello' }).waitFor();
  assert(await page.getByTestId('prompt-option').count() === 1, 'the menu is not filtered');
  await shot(page, 'prompts-menu');
  await composer.press('Enter');
  await page.getByTestId('user-message').filter({ hasText: 'Hello from the prompt' }).waitFor();
  await page.getByTestId('answer').filter({ hasText: 'first answer' }).waitFor();
  assert(await composer.inputValue() === '', 'the composer kept the command');

  // With arguments: a form, the required one marked and needed.
  await composer.fill('/mcp-x:rev');
  await page.getByTestId('prompt-option').first().waitFor();
  await composer.press('Tab');
  const form = page.getByTestId('prompt-form');
  await form.waitFor();
  assert(await page.getByTestId('prompt-send').isDisabled(), 'the form sends without its required argument');
  assert(await page.getByTestId('prompt-arg-code').evaluate((e) => e === document.activeElement), 'the first field has not the focus');
  await page.getByTestId('prompt-arg-code').fill('x := 1');
  await shot(page, 'prompts-form');
  await page.getByTestId('prompt-send').click();
  await page.getByTestId('user-message').filter({ hasText: 'Please review: x := 1' }).waitFor();
  await page.getByTestId('answer').filter({ hasText: 'second answer' }).waitFor();
  assert(await form.count() === 0, 'the form stayed open');

  // Typed arguments, one quoted; Esc hides the menu.
  await composer.fill('/mcp-x:review');
  await page.getByTestId('prompt-menu').waitFor();
  await composer.press('Escape');
  await page.getByTestId('prompt-menu').waitFor({ state: 'detached' });
  await composer.fill('/mcp-x:review code="a b" lang=go');
  await composer.press('Enter');
  await page.getByTestId('user-message').filter({ hasText: 'Please review (go): a b' }).waitFor();
  await page.getByTestId('answer').filter({ hasText: 'third answer' }).waitFor();

  // Text that only starts with / is a message like any other.
  await composer.fill('/etc/hosts holds what?');
  await composer.press('Enter');
  await page.getByTestId('user-message').filter({ hasText: '/etc/hosts holds what?' }).waitFor();

  // On a phone the menu and the form fit the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await composer.fill('/mcp-x:review');
  await composer.press('Enter');
  await page.getByTestId('prompt-form').waitFor();
  const [sw, iw] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert(sw <= iw, `the page is ${sw} px wide on a ${iw} px screen`);
  const box = await page.getByTestId('prompt-send').boundingBox();
  assert(box && box.x >= 0 && box.x + box.width <= iw, 'the prompt form\'s send button is off the screen');
  await shot(page, 'prompts-phone');
});
