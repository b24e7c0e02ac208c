// approve-other.mjs: an approval asked by another channel (an OpenAI
// client's turn) shows in the global indicator on any page, names its
// channel, and is answered from there.
import { run, open, shot, assert } from './lib.mjs';

await run(async (page) => {
  await open(page, '/plugins');
  const bell = page.getByTestId('approvals-bell');
  await bell.locator('.badge', { hasText: '1' }).waitFor();
  await bell.click();
  const card = page.getByTestId('approval').first();
  await card.waitFor();
  const text = await card.textContent();
  assert(text.includes('notes__write') && text.includes('from OpenAI API'), 'card: ' + text);
  await shot(page, 'approval-other-channel');
  await card.getByRole('button', { name: 'Allow once' }).click();
  await bell.locator('.badge').waitFor({ state: 'detached' });
});
