import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { login, open, password, shot, tenant, username } from '../harness.mjs';

let browser, page, errors;
before(async () => ({ browser, page, errors } = await open()));
after(() => browser?.close());

test('a wrong password is refused with its message on the form', async () => {
  await page.goto(`/?tenant=${tenant}`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(`${password}-wrong`);
  await page.getByRole('button', { name: 'Log in' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  assert.match(await alert.textContent(), /password/i);
  await shot(page, 'login-refused');
});

test('logging in shows the search view, and a reload keeps the session', async () => {
  await login(page);
  assert.equal(await page.title(), 'Search · Quire');
  await shot(page, 'login-search');
  await page.reload();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  assert.equal(await page.title(), 'Search · Quire');
});

test('logging out returns to the form, and the session is gone', async () => {
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.getByLabel('Password').waitFor();
  await page.reload();
  await page.getByLabel('Password').waitFor();
  assert.deepEqual(errors, []);
});
