// retry.mjs: a model call that fails before its answer begins (a 429
// with Retry-After) shows why and that it is tried again; the notice goes
// when the answer comes.
import { run, open, shot, assert } from './lib.mjs';

await run(async (page) => {
  await open(page, '/chat');
  await page.getByTestId('composer').fill('Are you there?');
  await page.getByTestId('send').click();
  const answer = page.getByTestId('answer').last();
  const notice = answer.getByTestId('answer-notice');
  await notice.getByText(/429 rate limited/).waitFor();
  assert(/trying again in 2 s/.test(await notice.innerText()), 'the notice does not say when: ' + await notice.innerText());
  await shot(page, 'retry-waiting');
  await answer.getByText('Here after the retry.').waitFor();
  await notice.waitFor({ state: 'detached' });
  await shot(page, 'retry-answered');
});
