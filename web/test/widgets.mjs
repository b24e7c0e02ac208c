// widgets.mjs: a plugin's widgets show in the right sidebar (sparkline,
// table with toned cells, badge), plugin text stays text, a click on the
// table's retry cell goes to the plugin and the table follows its new
// declaration; on a phone the panel is a section under the page.
import { run, open, shot, assert } from './lib.mjs';

await run(async (page) => {
  await open(page, '/chat');
  const panel = page.getByTestId('widgets');
  await panel.waitFor();
  const table = panel.locator('[data-widget="jobs"]');
  await table.getByTestId('widget-table').getByText('failed').waitFor();
  assert(await panel.getByTestId('widget-sparkline').locator('polyline').count() === 1, 'no sparkline');
  assert(await panel.getByTestId('widget-badge').getByText('up').count() === 1, 'no badge');
  assert(await panel.getByTestId('widget-progress').locator('progress').getAttribute('value') === '42', 'no progress');
  await panel.getByTestId('widget-metric').getByText('-0.1').waitFor();
  assert(await panel.locator('[data-widget="tsx"]').count() === 0, 'the code widget is shown');
  // The title "Jobs <b>" is text, not markup.
  await table.getByText('Jobs <b>').waitFor();
  assert(await panel.locator('b').count() === 0, 'plugin text rendered as markup');
  assert(await panel.locator('[data-widget="evil"]').count() === 0, 'the html widget is shown');
  const box = await panel.boundingBox();
  assert(box && box.x > 900, 'the panel is not on the right: ' + JSON.stringify(box));
  await shot(page, 'widgets');

  await table.getByTestId('widget-action').click();
  await table.getByTestId('widget-result').getByText('retrying j2').waitFor();
  await table.getByTestId('widget-table').getByText('running').waitFor();
  assert(await table.getByTestId('widget-action').count() === 0, 'retry still offered after the retry');
  await shot(page, 'widgets-retried');
  const status = panel.locator('[data-widget="status"]');
  await status.getByTestId('widget-badge').click();
  await status.getByTestId('widget-result').getByText('toggled').waitFor();

  await page.setViewportSize({ width: 390, height: 800 });
  const phone = await panel.boundingBox();
  assert(phone && phone.x < 10 && phone.y > 100, 'on a phone the panel is not a section under the page: ' + JSON.stringify(phone));
  await shot(page, 'widgets-phone');
});
