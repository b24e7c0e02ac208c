// settings.mjs: the weather plugin's form is generated from its
// declarations; a change is saved and read back through the API; a value
// out of range is refused beside its field; the secret's value appears
// neither in the page nor in any answer the page received.
import { run, open, shot, api, assert } from './lib.mjs';

const secret = process.env.HEARTH_TEST_SECRET;
assert(secret, 'HEARTH_TEST_SECRET is not set');

await run(async (page) => {
  const bodies = [];
  page.on('response', async (r) => {
    try { bodies.push(r.url() + '\n' + await r.text()); } catch { /* a stream or a redirect */ }
  });
  await open(page, '/settings');
  const form = page.getByTestId('settings-weather');
  await form.waitFor();
  // Every kind of field is there.
  await form.locator('input[name=city]').waitFor();
  await form.locator('select[name=units]').waitFor();
  await form.locator('input[name=days][type=number][min="1"][max="7"]').waitFor();
  await form.locator('input[name=alerts][type=checkbox]').waitFor({ state: 'attached' });
  const key = form.locator('input[name=api_key]');
  assert(await key.getAttribute('type') === 'password', 'secret field is not masked');
  assert(await key.inputValue() === '', 'secret field has a value');
  assert((await form.locator('[data-key=api_key] [data-testid=secret-state]').textContent()) === 'set', 'secret not shown as set');

  // An invalid value: refused beside its field, nothing saved.
  await form.locator('input[name=days]').fill('9');
  await form.getByTestId('save').click();
  await form.locator('[data-key=days] [data-testid=field-error]').waitFor();
  await shot(page, 'settings-invalid');

  // A valid change is saved and read back through the API.
  await form.locator('input[name=days]').fill('5');
  await form.locator('select[name=units]').selectOption('f');
  await form.locator('[data-key=alerts] .switch').click();
  await form.getByTestId('save').click();
  await form.getByTestId('form-msg').filter({ hasText: 'Saved.' }).waitFor();
  const got = await api('GET', '/v1/settings/weather');
  const v = Object.fromEntries(got.settings.map((s) => [s.key, s.value]));
  assert(v.days === 5 && v.units === 'f' && v.alerts === true, 'not persisted: ' + JSON.stringify(v));
  await shot(page, 'settings');

  // A new secret is written, and leaves nothing behind in the page.
  const fresh = secret + '-new';
  await key.fill(fresh);
  await form.getByTestId('save').click();
  await form.getByTestId('form-msg').filter({ hasText: 'Saved.' }).waitFor();
  assert(await form.locator('input[name=api_key]').inputValue() === '', 'the new secret stayed in its field');
  const after = await api('GET', '/v1/settings/weather');
  const k = after.settings.find((x) => x.key === 'api_key');
  assert(k.set === true && k.value === null, 'secret read back: ' + JSON.stringify(k));
  assert(!(await page.content()).includes(fresh), 'the new secret is in the page');

  // The secret never reached the page.
  const html = await page.content();
  assert(!html.includes(secret), 'the secret is in the page');
  assert(!bodies.some((b) => b.includes(secret)), 'the secret is in an answer: ' + bodies.find((b) => b.includes(secret)));
  assert(!(await page.evaluate(() => JSON.stringify(localStorage))).includes(secret), 'the secret is in localStorage');
});
