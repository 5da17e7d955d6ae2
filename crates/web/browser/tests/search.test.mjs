// The search and the record view, as a librarian uses them: a keyword typed into the box,
// a facet chosen, a page turned, a malformed query refused, a record opened with its
// holdings, items, MARC and history. Every count is checked against the API.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Api, login, open, shot } from '../harness.mjs';

let browser, page, errors, api;
before(async () => {
  ({ browser, page, errors } = await open());
  api = await Api.login();
});
after(() => browser?.close());

/** The CQL the page makes of a keyword search, to ask the API the same question. */
const keywordQuery = (word) => `keyword all "${word}" or identifiers.value == "${word}" or hrid == "${word}"`;
const total = async (query) => (await api.get('/search/instances', { query, limit: '0' })).totalRecords;

/** The word of the demo's titles that finds the most records (in a few hundred generated
 * titles only words such as "the" fill more than a page): the test is not tied to one
 * generated catalogue. */
async function commonWord() {
  const { instances } = await api.get('/search/instances', { query: 'cql.allRecords=1', limit: '80' });
  const words = new Set(instances.flatMap((i) => i.title.toLowerCase().split(/[^a-z]+/))
    .filter((w) => w.length >= 3));
  let best = { word: '', count: 0 };
  for (const word of words) {
    const count = await total(keywordQuery(word));
    if (count > best.count) best = { word, count };
  }
  return best;
}

const countText = () => page.getByRole('status').filter({ hasText: /records? found/ });
const countOf = async () => Number((await countText().textContent()).replace(/\D/g, ''));
const resultRows = () => page.locator('table.search-table tbody tr');

let word, found, narrowed;

test('an empty box explains what to type, and typing shows results at once', async () => {
  await login(page);
  await page.getByRole('heading', { name: 'What are you looking for?' }).waitFor();
  await shot(page, 'search-empty');

  ({ word, count: found } = await commonWord());
  assert.ok(found > 20, `"${word}" finds ${found} records, too few to page`);
  const box = page.getByLabel('Search for');
  await box.pressSequentially(word, { delay: 30 });
  await countText().filter({ hasText: found.toLocaleString('en-US') }).waitFor();
  assert.equal(await countOf(), found, 'the count is the API\'s');
  assert.equal(await resultRows().count(), 20);
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('type')), 'search',
    'the focus stays in the box');
  assert.match(page.url(), new RegExp(`#/search\\?q=${word}$`));
  await shot(page, 'search-results');
});

test('a facet value narrows the results to its count, as a removable chip', async () => {
  const statuses = page.getByRole('group', { name: 'Item status' });
  const boxes = statuses.getByRole('checkbox');
  const labels = await statuses.locator('label').allTextContents();
  // The value that narrows most while still filling more than one page, if any.
  const counts = labels.map((text) => Number(text.match(/\(([\d,]+)\)$/)[1].replace(/,/g, '')));
  let pick = counts.findIndex((n) => n > 20 && n < found);
  if (pick < 0) pick = counts.indexOf(Math.max(...counts.filter((n) => n < found)));
  narrowed = counts[pick];
  const value = labels[pick].replace(/ \([\d,]+\)$/, '');
  // From the keyboard: the checkbox keeps the focus when the facets are drawn anew.
  await boxes.nth(pick).focus();
  await page.keyboard.press('Space');
  await countText().filter({ hasText: new RegExp(`^${narrowed.toLocaleString('en-US')} record`) }).waitFor();
  assert.equal(await page.evaluate(() => document.activeElement.dataset.key), `items.status.name:${value}`);
  const cql = `(${keywordQuery(word)}) and items.status.name==("${value}")`;
  assert.equal(await countOf(), await total(cql), 'the narrowed count is the API\'s');
  assert.ok(await page.getByRole('button', { name: `Remove filter Item status: ${value}` }).isVisible());
  assert.ok(page.url().includes(`f=items.status.name%3A${encodeURIComponent(value).replace(/%20/g, '+')}`), page.url());
  await shot(page, 'search-facet');
});

test('paging forward shows the next records, and the back button returns', async () => {
  assert.ok(narrowed > 20 || found > 20);
  if (narrowed <= 20) await page.getByRole('button', { name: /^Remove filter/ }).click();
  const firstTitle = await resultRows().first().locator('a').textContent();
  await page.getByRole('button', { name: 'Next →' }).click();
  await page.getByText(/^Records 21–/).waitFor();
  assert.equal(await page.evaluate(() => document.activeElement.dataset.pager), 'next');
  assert.notEqual(await resultRows().first().locator('a').textContent(), firstTitle);
  assert.match(page.url(), /offset=20/);
  await shot(page, 'search-page-2');
  await page.goBack();
  await page.getByText(/^Records 1–20 of/).waitFor();
  assert.equal(await resultRows().first().locator('a').textContent(), firstTitle);
  assert.equal(await page.getByLabel('Search for').inputValue(), word, 'the state came back with the address');
});

test('a malformed query search is refused with its message where it was typed', async () => {
  await page.getByLabel('Search in').selectOption('query');
  const box = page.getByLabel('Search for');
  await box.fill('title all "unfinished');
  await box.press('Enter');
  const alert = page.locator('.search-error [role="alert"]', { hasText: 'Failed to parse CQL query' });
  await alert.waitFor();
  assert.match(await alert.textContent(), /title all "unfinished/);
  await shot(page, 'search-cql-error');
});

/** A MARC instance with a checked-out item, so every part of the record view has data. */
async function lentMarcInstance() {
  const { loans } = await api.get('/circulation/loans', { query: 'status.name=="Open"', limit: '100' });
  for (const loan of loans) {
    const instance = await api.get(`/instance-storage/instances/${loan.item.instanceId}`);
    if (instance.source === 'MARC') return instance;
  }
  throw new Error('the demo has no lent MARC instance');
}

test('a record shows its holdings, items with due dates, MARC and history', async () => {
  const instance = await lentMarcInstance();
  // A change by the administrator, for the history to show.
  await api.call('PUT', `/instance-storage/instances/${instance.id}`,
    { ...instance, administrativeNotes: ['Checked by the search test'] });

  // The facet chosen earlier would hide the record: its chips are removed first.
  const chips = page.getByRole('button', { name: /^Remove filter/ });
  for (let left = await chips.count(); left; left--) {
    await chips.first().click();
    await page.waitForFunction((n) => document.querySelectorAll('.search-chip').length < n, left);
  }
  await page.getByLabel('Search in').selectOption('hrid');
  await page.getByLabel('Search for').fill(instance.hrid);
  await page.getByLabel('Search for').press('Enter');
  await countText().filter({ hasText: /^1 record found/ }).waitFor();
  await resultRows().first().getByRole('link').click();
  await page.getByRole('heading', { level: 1, name: instance.title }).waitFor();
  await page.getByRole('tabpanel', { name: 'Instance' }).getByText(instance.hrid, { exact: true }).waitFor();
  await shot(page, 'search-record');

  const { holdingsRecords } = await api.get('/holdings-storage/holdings', { query: `instanceId==${instance.id}` });
  const { items } = await api.get('/inventory/items', {
    query: `holdingsRecordId==(${holdingsRecords.map((r) => r.id).join(' or ')})`, limit: '1000',
  });
  await page.getByRole('tab', { name: 'Holdings and items' }).click();
  const panel = page.getByRole('tabpanel', { name: 'Holdings and items' });
  await panel.locator('table.record-items').first().waitFor();
  assert.equal(await panel.getByRole('heading', { level: 3 }).count(), holdingsRecords.length);
  assert.equal(await panel.locator('table.record-items tbody tr').count(), items.length);
  const lent = items.find((item) => item.status.name === 'Checked out');
  const row = panel.locator('tr', { hasText: lent.barcode });
  assert.match(await row.textContent(), /Checked out\s*Due /);
  await shot(page, 'search-record-holdings');

  // The tabs follow the arrow keys.
  await page.getByRole('tab', { name: 'Holdings and items' }).press('ArrowRight');
  assert.equal(await page.getByRole('tab', { name: 'MARC record' }).getAttribute('aria-selected'), 'true');
  const marc = page.locator('pre.marc');
  await marc.waitFor();
  assert.match(await marc.textContent(), /^245 [\d\\]{2} \$a \S/m);
  assert.match(await marc.textContent(), /^LDR \d{5}/m);
  await shot(page, 'search-record-marc');

  await page.getByRole('tab', { name: 'History' }).click();
  const history = await api.get(`/audit-data/inventory/instance/${instance.id}`);
  const rows = page.locator('.record-history').first().locator('tbody tr');
  await rows.first().waitFor();
  assert.equal(await rows.count(), history.inventoryAuditItems.length);
  assert.match(await rows.first().textContent(), /Updated\s*admin Administrator/);
  assert.match(await rows.last().textContent(), /Created/);
  await shot(page, 'search-record-history');

  // The back link returns to the search as it was left.
  await page.getByRole('link', { name: '← Back to search results' }).click();
  await countText().filter({ hasText: /^1 record found/ }).waitFor();
  assert.equal(await page.getByLabel('Search for').inputValue(), instance.hrid);
});

test('an instance catalogued in FOLIO says it has no MARC record', async () => {
  const { instances } = await api.get('/search/instances', { query: 'source=="FOLIO"', limit: '1' });
  await page.goto(`/#/record/${instances[0].id}?tab=marc`);
  await page.getByText('it has no MARC record').waitFor();
});

test('the search works at tablet width', async () => {
  await page.setViewportSize({ width: 768, height: 1024 });
  await page.goto(`/#/search?q=${word}`);
  await countText().filter({ hasText: found.toLocaleString('en-US') }).waitFor();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
  await shot(page, 'search-tablet');
  assert.deepEqual(errors, []);
});
