// interrupt.mjs: while an answer is on its way, the send button interrupts
// it; the first answer is marked interrupted and the new message answered.
import { run, open, shot, assert } from './lib.mjs';

await run(async (page) => {
  await open(page, '/chat');
  await page.getByTestId('composer').fill('Tell me a long story');
  await page.getByTestId('send').click();
  await page.getByTestId('answer').last().locator('.typing').waitFor();
  await page.getByTestId('send').getByText('Interrupt and send').waitFor({ state: 'attached' });
  await page.getByTestId('composer').fill('Stop, just say hi');
  await page.getByTestId('send').click();
  await page.getByTestId('answer').getByText('Hi!').waitFor();
  await page.getByTestId('answer').first().getByText(/interrupted/i).waitFor();
  assert(await page.getByTestId('send').getByText('Send').count() === 1, 'still busy after the answer');
  await shot(page, 'interrupt');
});
