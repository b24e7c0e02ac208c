// onboard.mjs: a fresh Hearth with no model opens on the onboarding;
// choosing "Other (OpenAI-compatible)", entering the address of a
// (scripted) OpenAI-compatible server and a key, testing it, and starting
// reaches a chat that answers.
import { run, open, shot, api, assert } from './lib.mjs';

const modelURL = process.env.HEARTH_TEST_MODEL_URL;
assert(modelURL, 'HEARTH_TEST_MODEL_URL is not set');

await run(async (page) => {
  await open(page, '/');
  const form = page.getByTestId('onboarding');
  await form.waitFor();
  assert(page.url().endsWith('/providers'), 'a fresh Hearth did not open the onboarding: ' + page.url());
  await shot(page, 'onboarding');
  await form.locator('select[name=preset]').selectOption({ label: 'Other (OpenAI-compatible)' });
  await form.locator('input[name=name]').fill('local');
  await form.locator('input[name=api_key]').fill('sk-onboarding-0123456789');
  await form.locator('input[name=base_url]').fill(modelURL);
  await form.locator('input[name=model]').fill('scripted');
  await form.getByTestId('test-provider').click();
  await form.getByTestId('provider-msg').filter({ hasText: 'It works' }).waitFor();
  await shot(page, 'onboarding-tested');
  await form.getByTestId('use-provider').click();
  await page.getByTestId('composer').waitFor();
  await page.getByTestId('composer').fill('Hello?');
  await page.getByTestId('send').click();
  await page.getByTestId('answer').last().getByText('Hello from the fake model.').waitFor();
  const list = await api('GET', '/v1/providers');
  assert(list.current === 'local', 'current source: ' + list.current);
  assert(!JSON.stringify(list).includes('sk-onboarding'), 'the key is in the providers list');
  await shot(page, 'onboarding-chat');
});
