// The jobs views: a MARC file imported through the page and watched to its end, a file
// that fails shown failing, and a bulk edit of items from an identifiers file, previewed,
// committed, downloaded and undone, each step checked against the API.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { Api, login, open, shot } from '../harness.mjs';

// The shared test data sit beside the repository: tests/ → browser → web → crates → root → its parent.
const shared = fileURLToPath(new URL('../../../../../shared/data/marc/', import.meta.url));
const DEFAULT_PROFILE = 'e34d7b92-9b83-11eb-a8b3-0242ac130003';

let browser, page, errors, api, scratch;
before(async () => {
  ({ browser, page, errors } = await open());
  api = await Api.login();
  scratch = mkdtempSync(path.join(tmpdir(), 'quire-jobs-'));
  await login(page);
});
after(async () => {
  await browser?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const instanceCount = async () =>
  (await api.get('/instance-storage/instances', { limit: 0, query: 'cql.allRecords=1' })).totalRecords;

/** Starts an import of `file` from the import view; answers the job id the page moves to. */
async function importThroughPage(file) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Import' }).click();
  await page.getByRole('heading', { name: 'Import MARC records' }).waitFor();
  await page.getByLabel('MARC file').setInputFiles(file);
  // FOLIO's default create-instance profile is the one chosen once the list has loaded.
  await page.getByRole('option', { name: /^Default - Create instance and SRS MARC Bib/ }).waitFor({ state: 'attached' });
  assert.equal(await page.getByLabel('Job profile').inputValue(), DEFAULT_PROFILE);
  return file;
}

test('a MARC file is imported through the page and watched until its summary and log', async () => {
  const instancesBefore = await instanceCount();
  await importThroughPage(path.join(shared, '100.mrc'));
  await shot(page, 'jobs-import-form');
  await page.getByRole('button', { name: 'Start import' }).click();
  await page.waitForURL(/#\/import\/[0-9a-f-]{36}$/);
  const jobId = page.url().split('/').pop();
  await page.getByRole('progressbar', { name: 'Records processed' }).waitFor();
  await shot(page, 'jobs-import-running');

  await page.getByRole('heading', { name: 'Summary' }).waitFor({ timeout: 60_000 });
  const instances = page.getByRole('row', { name: /^Instances\b/ });
  assert.equal(await instances.getByRole('cell').first().textContent(), '100', 'instances created');
  assert.equal(await page.getByRole('row', { name: /^SRS MARC\b/ }).getByRole('cell').first().textContent(), '100');
  assert.match(await page.getByRole('status').textContent(), /^Completed: .*Instances: 100 created/);

  const log = page.getByRole('table', { name: 'Records (100)' });
  await log.waitFor();
  assert.equal(await log.getByRole('row').count(), 26, 'a header and 25 records a page');
  const first = log.getByRole('row').nth(1);
  assert.match(await first.textContent(), /Logical matters/);
  assert.match(await first.textContent(), /Created/);
  await shot(page, 'jobs-import-done');
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByText('26–50 of 100').waitFor();
  assert.match(await log.getByRole('row').nth(1).textContent(), /^26/);

  // The records the page reported exist.
  assert.equal(await instanceCount(), instancesBefore + 100);
  const { entries } = await api.get(`/metadata-provider/jobLogEntries/${jobId}`, { limit: 100 });
  assert.equal(entries.length, 100);
  const created = await api.get(`/instance-storage/instances/${entries[0].relatedInstanceInfo.idList[0]}`);
  assert.match(created.title, /^Logical matters/);

  // The job is in the list of recent imports, and reopens from it.
  await page.getByRole('link', { name: 'New import and recent jobs' }).click();
  const recent = page.getByRole('region', { name: 'Recent imports', exact: true });
  await recent.waitFor();
  const row = recent.getByRole('row').filter({ hasText: '100.mrc' }).first();
  assert.match(await row.textContent(), /Completed.*100 of 100/);
  await shot(page, 'jobs-import-list');
  await row.getByRole('link').click();
  await page.getByRole('heading', { name: 'Summary' }).waitFor();
  assert.equal(page.url().split('/').pop(), jobId);
});

test('a file that cannot be read ends its job as failed, the reason in the log', async () => {
  await importThroughPage(path.join(shared, 'invalidMarcFile.mrc'));
  await page.getByRole('button', { name: 'Start import' }).click();
  await page.getByRole('heading', { name: 'Summary' }).waitFor({ timeout: 30_000 });
  assert.match(await page.getByRole('status').textContent(), /^(Failed|Completed with errors)/);
  const log = page.getByRole('table', { name: /^Records/ });
  assert.match(await log.textContent(), /ISO 2709/);
  await shot(page, 'jobs-import-failed');
});

/** Items by barcode, as the API has them now. */
async function itemsByBarcode(barcodes) {
  const query = barcodes.map((b) => `barcode=="${b}"`).join(' or ');
  const { items } = await api.get('/item-storage/items', { limit: 100, query });
  return new Map(items.map((item) => [item.barcode, item]));
}

test('a bulk edit of items: identifiers uploaded, rules previewed, committed, downloaded, undone', async () => {
  const available = await api.get('/item-storage/items', { limit: 50, query: 'status.name=="Available"' });
  const items = available.items.filter((item) => item.barcode).slice(0, 3);
  assert.equal(items.length, 3);
  const barcodes = items.map((item) => item.barcode);
  const { loantypes } = await api.get('/loan-types', { limit: 100 });
  const newLoanType = loantypes.find((type) => items.every((item) => item.permanentLoanTypeId !== type.id));
  const identifiers = path.join(scratch, 'barcodes.csv');
  writeFileSync(identifiers, `${barcodes.join('\n')}\nno-such-barcode\n`);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Bulk edit' }).click();
  await page.getByLabel('Record type').selectOption('ITEM');
  await page.getByLabel('Identifier type').selectOption('BARCODE');
  await page.getByLabel('Identifiers file').setInputFiles(identifiers);
  await shot(page, 'jobs-bulk-start');
  await page.getByRole('button', { name: 'Find records' }).click();
  await page.waitForURL(/#\/bulk\/[0-9a-f-]{36}$/);
  const operationId = page.url().split('/').pop();

  // The records found, and the identifier that matched none.
  await page.getByRole('heading', { name: 'Records found (3)' }).waitFor({ timeout: 30_000 });
  const found = await page.getByRole('region', { name: 'Records found (3)' }).textContent();
  for (const barcode of barcodes) assert.ok(found.includes(barcode), `${barcode} is in the preview`);
  const matchErrors = page.getByRole('table', { name: /^Errors and warnings/ });
  assert.match(await matchErrors.textContent(), /no-such-barcode.*No match found/);
  await shot(page, 'jobs-bulk-matched');

  // Two changes: the status, and the permanent loan type.
  const changes = page.getByRole('group', { name: 'Change' });
  await changes.first().getByLabel('Field').selectOption('STATUS');
  await changes.first().getByLabel('New value').selectOption('Missing');
  await page.getByRole('button', { name: 'Add a change' }).click();
  await changes.nth(1).getByLabel('Field').selectOption('PERMANENT_LOAN_TYPE');
  await changes.nth(1).getByLabel('New value').selectOption(newLoanType.id);
  await shot(page, 'jobs-bulk-rules');
  await page.getByRole('button', { name: 'Preview changes' }).click();

  // The proposed changes beside the originals.
  await page.getByRole('heading', { name: 'Proposed changes (3)' }).waitFor({ timeout: 30_000 });
  const diff = page.getByRole('region', { name: 'Proposed changes (3)' });
  const changedCells = diff.locator('td.jobs-changed');
  assert.equal(await changedCells.count(), 6, 'two changed cells a record');
  assert.match(await changedCells.first().textContent(), /before: .+after: .+/);
  const diffText = await diff.textContent();
  assert.match(diffText, /before: Availableafter: Missing/);
  assert.ok(diffText.includes(`after: ${newLoanType.name}`));
  // Nothing is written before the commit.
  for (const item of (await itemsByBarcode(barcodes)).values()) assert.equal(item.status.name, 'Available');
  await shot(page, 'jobs-bulk-preview');

  await page.getByRole('button', { name: 'Commit changes to 3 items' }).click();
  await page.getByRole('heading', { name: 'Changed records (3)' }).waitFor({ timeout: 30_000 });
  assert.match(await page.getByRole('status').first().textContent(), /^Completed/);
  for (const item of (await itemsByBarcode(barcodes)).values()) {
    assert.equal(item.status.name, 'Missing');
    assert.equal(item.permanentLoanTypeId, newLoanType.id);
  }
  await shot(page, 'jobs-bulk-committed');

  // The changed records as a file, fetched by the page and saved through a download link.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download changed records' }).click(),
  ]);
  assert.match(download.suggestedFilename(), /Changed-Records.*\.csv$/);
  const csv = readFileSync(await download.path(), 'utf8');
  const [header, ...lines] = csv.trim().split('\n');
  assert.match(header, /^Item UUID,/);
  assert.equal(lines.length, 3);
  for (const barcode of barcodes) assert.ok(csv.includes(barcode));
  assert.ok(lines.every((line) => line.includes('Missing') && line.includes(newLoanType.name)));

  // Undo puts every item back as it was.
  await page.getByRole('button', { name: 'Undo: restore the 3 items changed' }).click();
  await page.getByText(/^Undo completed: 3 restored\./).first().waitFor({ timeout: 30_000 });
  const restored = await itemsByBarcode(barcodes);
  for (const item of items) {
    assert.equal(restored.get(item.barcode).status.name, 'Available');
    assert.equal(restored.get(item.barcode).permanentLoanTypeId, item.permanentLoanTypeId);
  }
  const operation = await api.get(`/bulk-operations/${operationId}`);
  assert.ok(operation.rolledBackBy, 'the operation names its undo');
  await shot(page, 'jobs-bulk-undone');

  // A reload shows the same result, undo included.
  await page.reload();
  await page.getByText(/^Undo completed: 3 restored\./).first().waitFor();

  // At tablet width the list of bulk edits folds below the form.
  await page.setViewportSize({ width: 768, height: 1024 });
  await page.getByRole('link', { name: 'New bulk edit and recent ones' }).click();
  const recent = page.getByRole('region', { name: 'Recent bulk edits', exact: true });
  // The region shows before its list has loaded: wait for the list, not the region.
  await recent.getByText(/Undo of an earlier edit/).first().waitFor();
  await shot(page, 'jobs-bulk-list-tablet');
  await page.setViewportSize({ width: 1366, height: 768 });
});

test('a bulk edit started from a query previews, and can be cancelled before its commit', async () => {
  const { instances } = await api.get('/instance-storage/instances', { limit: 20 });
  const instance = instances.find((record) => !record.staffSuppress);
  await page.goto('/#/bulk');
  await page.getByLabel('Record type').selectOption('INSTANCE');
  await page.getByLabel('A query').check();
  await page.getByLabel('Query (CQL)').fill(`id=="${instance.id}"`);
  await page.getByRole('button', { name: 'Find records' }).click();
  await page.getByRole('heading', { name: 'Records found (1)' }).waitFor({ timeout: 30_000 });
  await page.getByLabel('Field').selectOption('STAFF_SUPPRESS');
  await page.getByLabel('Action').selectOption('SET_TO_TRUE');
  await page.getByRole('button', { name: 'Preview changes' }).click();
  await page.getByRole('heading', { name: 'Proposed changes (1)' }).waitFor({ timeout: 30_000 });
  assert.match(await page.getByRole('region', { name: 'Proposed changes (1)' }).textContent(), /before: falseafter: true/);
  await shot(page, 'jobs-bulk-query-preview');
  await page.getByRole('button', { name: 'Cancel this edit' }).click();
  await page.getByRole('heading', { name: /^Bulk edit #\d+/ }).waitFor();
  await page.getByText('Nothing was committed, so there is nothing to undo.').waitFor();
  assert.equal((await api.get(`/instance-storage/instances/${instance.id}`)).staffSuppress ?? false, false);
  assert.deepEqual(errors, []);
});
