// What every browser test shares: Chromium launched headless on the server that
// scripts/browser-test.sh started, a logged-in page, screenshots, and a Node-side API
// client for arranging data the way another staff member or a script would.
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';

export const baseURL = process.env.QUIRE_URL;
export const tenant = process.env.QUIRE_TENANT || 'demo';
export const username = process.env.QUIRE_USER || 'admin';
export const password = process.env.QUIRE_PASSWORD || 'admin';
const screenshots = process.env.QUIRE_SCREENSHOTS || 'screenshots';
if (!baseURL) throw new Error('QUIRE_URL is not set: run the tests with scripts/browser-test.sh');

// Without the background-networking flags Chromium keeps trying Google's hosts, which
// this closed network refuses.
const FLAGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/**
 * A fresh browser and page at 1366x768 (or `viewport`). `errors` collects uncaught page
 * errors and console errors, which a test should find empty at its end.
 */
export async function open({ viewport = { width: 1366, height: 768 } } = {}) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: FLAGS,
  });
  const context = await browser.newContext({ baseURL, viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const errors = [];
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // A refused request shows as a console error too; the tests assert on the page's
    // own messages for those, so only script errors are collected.
    if (message.type() === 'error' && !/Failed to load resource/.test(message.text())) {
      errors.push(`console: ${message.text()}`);
    }
  });
  return { browser, page, errors };
}

/** Logs in through the form, as a librarian would, and waits for the search view. */
export async function login(page) {
  await page.goto(`/?tenant=${tenant}`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

/** A full-page screenshot kept as `NAME.png` for a person to look at. */
export async function shot(page, name) {
  mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path: `${screenshots}/${name}.png`, fullPage: true });
}

/** The API as the test's administrator, with a legacy token: for arranging data. */
export class Api {
  static async login() {
    const response = await fetch(`${baseURL}/authn/login`, {
      method: 'POST',
      headers: { 'X-Okapi-Tenant': tenant, 'Content-Type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });
    if (!response.ok) throw new Error(`login: ${response.status} ${await response.text()}`);
    return new Api(response.headers.get('x-okapi-token'));
  }

  constructor(token) {
    this.token = token;
  }

  async call(method, path, body) {
    const response = await fetch(`${baseURL}${path}`, {
      method,
      headers: {
        'X-Okapi-Tenant': tenant,
        'X-Okapi-Token': this.token,
        'Content-Type': 'application/json',
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : null;
  }

  get(path, query) {
    return this.call('GET', query ? `${path}?${new URLSearchParams(query)}` : path);
  }

  post(path, body) {
    return this.call('POST', path, body);
  }
}
