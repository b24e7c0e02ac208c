// progress.mjs: a running tool's progress shows on its card (a bar, the
// count and the tool's message), and goes away when the call ends (here
// by the stop button, which cancels it).
import { run, open, shot, assert } from './lib.mjs';

await run(async (page) => {
  await open(page, '/chat');
  await page.getByTestId('composer').fill('Process the files');
  await page.getByTestId('send').click();
  const card = page.getByTestId('tool-call').last();
  const progress = card.getByTestId('tool-progress');
  await progress.getByText('3/10 · Processing files').waitFor();
  assert(await progress.locator('progress').getAttribute('value') === '3', 'the bar does not show 3 of 10');
  await shot(page, 'tool-progress');
  await page.getByTestId('stop').click();
  await page.getByTestId('answer').last().getByTestId('interrupted').waitFor();
  await progress.waitFor({ state: 'detached' });
});
