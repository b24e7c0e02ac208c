// approve.mjs: the model calls a tool that needs approval; the card
// appears in the chat and in the global indicator; "Allow once" runs the
// tool and the answer follows. Then a spending tool allowed always, which
// asks for "always" to be typed.
import { run, open, shot, assert } from './lib.mjs';

await run(async (page) => {
  await open(page, '/chat');
  await page.getByTestId('composer').fill('Note: buy milk');
  await page.getByTestId('send').click();
  const card = page.getByTestId('approval').first();
  await card.waitFor();
  await page.locator('[data-testid=approvals-bell] .badge', { hasText: '1' }).waitFor();
  assert((await card.textContent()).includes('notes__write'), 'card does not name the tool');
  await shot(page, 'approval');
  await card.getByRole('button', { name: 'Allow once' }).click();
  const answer = page.getByTestId('answer').last();
  await answer.getByText('Saved your note.').waitFor();
  await answer.locator('[data-testid=tool-call].done').waitFor();
  await page.getByTestId('approval').waitFor({ state: 'detached' });
  assert(await page.locator('[data-testid=approvals-bell] .badge').count() === 0, 'indicator still shows a pending approval');
  await answer.locator('[data-testid=tool-call] summary').click();
  await answer.getByText('buy milk').first().waitFor();
  await shot(page, 'tool-call');

  // A spending tool: "Always allow" needs "always" typed first.
  await page.getByTestId('composer').fill('Buy the tea');
  await page.getByTestId('send').click();
  const pay = page.getByTestId('approval').first();
  await pay.waitFor();
  await pay.getByRole('button', { name: 'Always allow' }).click();
  const confirm = pay.getByTestId('approval-confirm');
  await confirm.waitFor();
  const ok = pay.getByRole('button', { name: 'Confirm' });
  assert(await ok.isDisabled(), 'confirm enabled before typing');
  await confirm.fill('always');
  await shot(page, 'approval-confirm');
  await ok.click();
  await page.getByTestId('answer').last().getByText('Bought it.').waitFor();
});
