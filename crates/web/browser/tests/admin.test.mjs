import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Api, login, open, shot } from '../harness.mjs';

let browser, page, errors, api;
before(async () => {
  ({ browser, page, errors } = await open());
  api = await Api.login();
  await login(page);
});
after(() => browser?.close());

test('the admin view shows the node and the index as the API reports them', async () => {
  await page.getByRole('link', { name: 'Admin' }).click();
  const [status] = await api.get('/search/index/instance-records/reindex/status');
  const health = page.getByRole('region', { name: 'Health' });
  await health.getByText('sqlite, reachable').waitFor();
  const index = page.getByRole('region', { name: 'Search index' });
  await index.getByText(String(status.documents), { exact: true }).waitFor();
  await shot(page, 'admin');
});

test('a rebuild of the index runs to its end and says so', async () => {
  const [before] = await api.get('/search/index/instance-records/reindex/status');
  await page.getByRole('button', { name: 'Rebuild the index' }).click();
  await page.getByText(`Rebuilt: ${before.documents} instances indexed.`).waitFor({ timeout: 60_000 });
  const [after] = await api.get('/search/index/instance-records/reindex/status');
  assert.notEqual(after.generation, before.generation);
  await shot(page, 'admin-rebuilt');
});

test('OAI-PMH settings: an out-of-range value is refused in place, a good one is saved', async () => {
  const form = page.getByRole('form', { name: 'OAI-PMH technical settings' });
  const size = form.getByLabel('Records per response (1-500)');
  await size.fill('900');
  await form.getByRole('button', { name: 'Save technical' }).click();
  await form.getByRole('alert').getByText(/from 1 to 500/).waitFor();
  await shot(page, 'admin-oai-refused');
  await size.fill('50');
  await form.getByRole('button', { name: 'Save technical' }).click();
  await form.getByText(/^Saved at/).waitFor();
  const { configurationSettings } = await api.get('/oai-pmh/configuration-settings');
  const technical = configurationSettings.find((s) => s.configName === 'technical');
  assert.equal(technical.configValue.maxRecordsPerResponse, '50');
  assert.deepEqual(errors, []);
});
