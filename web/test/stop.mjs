// stop.mjs: while an answer is on its way, the stop button interrupts it
// (POST /v1/sessions/{id}/interrupt); the answer keeps its text and is
// marked interrupted,
// the button goes away and the composer can send again.
import { run, open, shot, assert } from './lib.mjs';

await run(async (page) => {
  await open(page, '/chat');
  await page.getByTestId('composer').fill('Tell me a long story');
  await page.getByTestId('send').click();
  await page.getByTestId('answer').last().locator('.typing').waitFor();
  await page.getByTestId('stop').waitFor();
  await shot(page, 'stop-running');
  await page.getByTestId('stop').click();
  // The answer keeps whatever had streamed (the scripted model hangs
  // before sending any text) and gets the interrupted mark after it.
  const answer = page.getByTestId('answer').last();
  await answer.getByTestId('interrupted').getByText(/interrupted/i).waitFor();
  assert(await answer.getByTestId('interrupted').count() === 1, 'the interrupted mark shows more than once');
  await page.getByTestId('stop').waitFor({ state: 'detached' });
  await page.locator('.sessions .session').getByText('working').waitFor({ state: 'detached' });
  assert(await page.getByTestId('send').getByText('Send').count() === 1, 'still busy after the stop');
  await shot(page, 'stop-done');
});
