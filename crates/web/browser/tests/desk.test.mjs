// The check-out and check-in desks as a librarian uses them with a barcode scanner:
// a patron looked up by barcode, three items scanned in a row, refusals with FOLIO's
// messages, a patron block overridden with a reason, then the items checked in, one of
// them to the hold shelf for the patron who requested it meanwhile.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Api, login, open, shot } from '../harness.mjs';

let browser, page, errors, api;
/** What the tests work with, found in the demo data through the API. */
let desk;

before(async () => {
  ({ browser, page, errors } = await open());
  api = await Api.login();
  desk = await arrange();
  await login(page);
});
after(() => browser?.close());

const cql = (query, more = {}) => ({ query, limit: '1000', ...more });

/**
 * A pickup service point with four Available, loanable, unrequested items in locations
 * it serves (so they come back Available there) and another that serves none of them,
 * an active patron without blocks, a second one to place a hold, and a third who will
 * be blocked by hand.
 */
async function arrange() {
  const points = (await api.get('/service-points', cql('cql.allRecords=1'))).servicepoints;
  const locations = (await api.get('/locations', cql('cql.allRecords=1'))).locations;
  const patrons = await unblockedPatrons();
  assert.ok(patrons.length >= 3, 'the demo has three active patrons without blocks');
  const [borrower, requester, blocked] = patrons;
  for (const point of points.filter((p) => p.pickupLocation)) {
    const served = new Set(locations
      .filter((l) => l.primaryServicePoint === point.id && (l.servicePointIds || []).includes(point.id))
      .map((l) => l.id));
    const items = await lendableItems(served, [borrower, blocked], 4);
    // Another desk, where these items do not belong.
    const others = points.filter((p) => p.id !== point.id && !locations
      .some((l) => served.has(l.id) && (l.servicePointIds || []).includes(p.id)));
    if (items.length === 4 && others.length) return { point, others, items, borrower, requester, blocked };
  }
  throw new Error('no pickup service point has four lendable items it serves');
}

/** Active patrons with a barcode, an expiry years ahead, and no block of any kind. */
async function unblockedPatrons() {
  const users = (await api.get('/users', cql('active==true and barcode=P* sortBy barcode', { limit: '40' }))).users;
  const yearAhead = Date.now() + 365 * 24 * 3600 * 1000;
  const found = [];
  for (const user of users) {
    if (!user.barcode || !user.personal?.lastName || new Date(user.expirationDate) < yearAhead) continue;
    const manual = await api.get('/manualblocks', cql(`userId==${user.id}`));
    const automated = await api.get(`/automated-patron-blocks/${user.id}`);
    if (manual.totalRecords === 0 && automated.automatedPatronBlocks.length === 0) found.push(user);
    if (found.length === 3) break;
  }
  return found;
}

/** Up to `n` Available items in `locations` that the patrons' loan policies lend, with no request. */
async function lendableItems(locations, patrons, n) {
  const items = (await api.get('/item-storage/items',
    cql('status.name=="Available" sortBy barcode', { limit: '300' }))).items;
  const found = [];
  for (const item of items) {
    if (!item.barcode || !locations.has(item.effectiveLocationId)) continue;
    let lent = true;
    for (const patron of patrons) {
      const { loanPolicyId } = await api.get('/circulation/rules/loan-policy', {
        item_type_id: item.materialTypeId,
        loan_type_id: item.temporaryLoanTypeId || item.permanentLoanTypeId,
        patron_type_id: patron.patronGroup,
        location_id: item.effectiveLocationId,
      });
      lent &&= (await api.get(`/loan-policy-storage/loan-policies/${loanPolicyId}`)).loanable;
    }
    const requests = await api.get('/circulation/requests', cql(`itemId==${item.id} and status=="Open*"`));
    if (lent && requests.totalRecords === 0) found.push(item);
    if (found.length === n) break;
  }
  return found;
}

const nameOf = (user) => `${user.personal.lastName}, ${user.personal.firstName}`;
const log = () => page.getByRole('list', { name: /this session/ });
const rows = (kind) => log().locator(`li.${kind}`);

/** Types like a scanner into whatever has focus: the barcode, then Enter. */
async function scan(barcode) {
  await page.keyboard.type(barcode);
  await page.keyboard.press('Enter');
}

test('the check-out desk finds a patron by barcode and shows their standing', async () => {
  await page.getByLabel('Service point').selectOption(desk.point.id);
  await page.goto('/#/checkout');
  await page.getByLabel('Patron barcode or name').waitFor();
  assert.equal(await page.title(), 'Check out · Quire');
  // The patron field has focus: a scanned card needs no click.
  await scan(desk.borrower.barcode);
  const pane = page.getByRole('region', { name: nameOf(desk.borrower) });
  await pane.waitFor();
  const group = await api.get(`/groups/${desk.borrower.patronGroup}`);
  await pane.getByText(group.group, { exact: true }).waitFor();
  await pane.getByRole('heading', { name: 'Open loans' }).waitFor();
  assert.match(await pane.textContent(), /Active/);
  assert.equal(await pane.getByRole('alert').count(), 0, 'no block shown');
  await shot(page, 'desk-patron');
});

test('three scans in a row check three items out, and refusals give FOLIO\'s reasons', async () => {
  const lent = desk.items.slice(0, 3);
  // The item field took focus; the scans follow one another without waiting.
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'checkout-item');
  for (const item of lent) await scan(item.barcode);
  await rows('desk-done').nth(2).waitFor();
  const listed = await rows('desk-done').allTextContents();
  // Newest first, each with its due date.
  lent.forEach((item, idx) => {
    assert.match(listed[2 - idx], new RegExp(`Barcode ${item.barcode}`));
    assert.match(listed[2 - idx], /Due /);
  });
  await page.getByRole('heading', { name: 'Checked out this session (3)' }).waitFor();
  const loansTable = page.getByRole('table', { name: 'Open loans' });
  for (const item of lent) await loansTable.getByRole('cell', { name: item.barcode, exact: true }).waitFor();
  await shot(page, 'desk-checked-out');

  // A barcode that does not exist, then one of the three again.
  const missing = `NO-SUCH-${Date.now()}`;
  await scan(missing);
  await scan(lent[0].barcode);
  await rows('desk-refused').nth(1).waitFor();
  const refused = await rows('desk-refused').allTextContents();
  assert.match(refused[1], new RegExp(`No item with barcode ${missing} could be found`));
  assert.match(refused[0], /Item is already checked out/);
  assert.match(refused[0], /Cannot check out item that already has an open loan/);
  assert.equal(await rows('desk-refused').getByRole('button', { name: 'Override' }).count(), 0,
    'neither refusal can be overridden');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'checkout-item');
  await shot(page, 'desk-refused');

  // The server agrees: three open loans to the patron, for these items.
  const loans = await api.get('/circulation/loans',
    cql(`userId==${desk.borrower.id} and status.name=="Open"`));
  const loaned = new Set(loans.loans.map((loan) => loan.itemId));
  for (const item of lent) assert.ok(loaned.has(item.id), `${item.barcode} is on loan`);
});

test('a blocked patron is shown at once, and the block is overridden with a reason', async () => {
  const reason = 'Lost a book and has not paid (browser test)';
  await api.post('/manualblocks', {
    userId: desk.blocked.id, desc: reason, borrowing: true, renewals: true, requests: true,
  });
  await page.getByRole('button', { name: 'New patron / End session' }).click();
  await page.getByLabel('Patron barcode or name').waitFor();
  assert.equal(await rows('desk-done').count(), 0, 'the session list is cleared');
  // By name this time, as "Last, First"; a pick list appears if the name is shared.
  await page.keyboard.type(nameOf(desk.blocked));
  await page.keyboard.press('Enter');
  const pane = page.getByRole('region', { name: nameOf(desk.blocked) });
  const pick = page.getByRole('button', { name: new RegExp(desk.blocked.barcode) });
  await pane.or(pick).first().waitFor();
  if (await pick.isVisible()) await pick.click();
  const block = pane.getByRole('alert');
  await block.waitFor();
  assert.match(await block.textContent(), new RegExp(reason.replace(/[()]/g, '\\$&')));
  await shot(page, 'desk-blocked');

  const item = desk.items[3];
  await page.getByLabel('Item barcode').focus();
  await scan(item.barcode);
  const refused = rows('desk-refused').first();
  await refused.waitFor();
  assert.match(await refused.textContent(), /Patron blocked from borrowing/);
  await refused.getByRole('button', { name: 'Override' }).click();
  await page.getByLabel('Reason for the override').fill('Head of circulation agreed');
  await page.keyboard.press('Enter');
  const done = rows('desk-done').first();
  await done.waitFor();
  assert.match(await done.textContent(), new RegExp(`Barcode ${item.barcode}`));
  assert.match(await done.textContent(), /Overridden: Head of circulation agreed/);
  await shot(page, 'desk-override');
  const loans = await api.get('/circulation/loans', cql(`itemId==${item.id} and status.name=="Open"`));
  assert.equal(loans.loans[0]?.action, 'checkedOutThroughOverride');
  assert.equal(loans.loans[0]?.userId, desk.blocked.id);
});

test('check-in routes a requested item to the hold shelf and the others back to the shelf', async () => {
  const [held, ...others] = desk.items.slice(0, 3);
  const holdings = await api.get(`/holdings-storage/holdings/${held.holdingsRecordId}`);
  const hold = await api.post('/circulation/requests', {
    requestType: 'Hold', requestLevel: 'Item', requestDate: new Date().toISOString(),
    requesterId: desk.requester.id, itemId: held.id, holdingsRecordId: held.holdingsRecordId,
    instanceId: holdings.instanceId, fulfillmentPreference: 'Hold Shelf',
    pickupServicePointId: desk.point.id,
  });

  await page.getByRole('link', { name: 'Check in' }).click();
  // The check-out desk has an "Item barcode" field too: wait for the check-in desk's own.
  await page.locator('#checkin-item').waitFor();
  assert.equal(await page.title(), 'Check in · Quire');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'checkin-item');
  for (const item of [held, ...others]) await scan(item.barcode);
  await scan(`NO-SUCH-${Date.now()}`);
  await rows('desk-done').nth(2).waitFor();
  await rows('desk-refused').first().waitFor();

  const rowOf = (item) => rows('desk-done').filter({ hasText: `Barcode ${item.barcode}` });
  const heldText = await rowOf(held).textContent();
  assert.match(heldText, new RegExp(`Hold shelf for ${nameOf(desk.requester)} \\(${desk.requester.barcode}\\)`));
  assert.match(heldText, /Status: Awaiting pickup/);
  for (const item of others) {
    const text = await rowOf(item).textContent();
    assert.match(text, /Status: Available/);
    assert.match(text, /Back to the shelf/);
    assert.match(text, new RegExp(`Returned by ${nameOf(desk.borrower)}`));
  }
  assert.match(await rows('desk-refused').first().textContent(), /No item with barcode NO-SUCH-\d+ exists/);
  await shot(page, 'desk-checked-in');

  // The server agrees: the loans are closed, the hold waits, the items are where the desk said.
  const open = await api.get('/circulation/loans', cql(`userId==${desk.borrower.id} and status.name=="Open"`));
  for (const item of [held, ...others]) {
    assert.ok(!open.loans.some((loan) => loan.itemId === item.id), `${item.barcode}'s loan is closed`);
  }
  const status = async (item) => (await api.get(`/item-storage/items/${item.id}`)).status.name;
  assert.equal(await status(held), 'Awaiting pickup');
  for (const item of others) assert.equal(await status(item), 'Available');
  assert.equal((await api.get(`/circulation/requests/${hold.id}`)).status, 'Open - Awaiting pickup');

  // Returned at a desk that does not serve its location, the fourth item travels home.
  const elsewhere = desk.others[0];
  const traveller = desk.items[3];
  await page.getByLabel('Service point').selectOption(elsewhere.id);
  await page.getByLabel('Item barcode').focus();
  await scan(traveller.barcode);
  await rowOf(traveller).waitFor();
  assert.match(await rowOf(traveller).textContent(), new RegExp(`In transit to ${desk.point.name}`));
  const travelling = await api.get(`/item-storage/items/${traveller.id}`);
  assert.equal(travelling.status.name, 'In transit');
  assert.equal(travelling.inTransitDestinationServicePointId, desk.point.id);
  await shot(page, 'desk-in-transit');
  await page.getByLabel('Service point').selectOption(desk.point.id);
});

test('the desks fit a tablet', async () => {
  await page.setViewportSize({ width: 768, height: 1024 });
  await shot(page, 'desk-checkin-tablet');
  await page.getByRole('link', { name: 'Check out' }).click();
  await page.getByLabel('Patron barcode or name').waitFor();
  await scan(desk.borrower.barcode);
  await page.getByRole('region', { name: nameOf(desk.borrower) }).waitFor();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no sideways scrolling (${overflow} px too wide)`);
  await shot(page, 'desk-checkout-tablet');
  assert.deepEqual(errors, []);
});
