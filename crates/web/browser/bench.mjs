// Times the staff page in headless Chromium against a running server, as a librarian
// meets it: the first load of the page, the first load of a saved search by a logged-in
// user, each search submitted from the box, and the results after the last keystroke
// when typing. Times are taken inside the page (performance.now()) up to the frame after
// the results are in the document. scripts/bench-web.sh runs it; see docs/benchmarks.md.
//
//   QUIRE_URL=... QUIRE_TENANT=... QUIRE_USER=... QUIRE_PASSWORD=... node bench.mjs [SEARCHES]
import { chromium } from 'playwright-core';

const url = process.env.QUIRE_URL;
const tenant = process.env.QUIRE_TENANT;
const [username, password] = [process.env.QUIRE_USER, process.env.QUIRE_PASSWORD];
const searches = Number(process.argv[2] || 100);
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Words from the titles of instances spread over the tenant, the same for every run. */
async function words(count) {
  const login = await fetch(`${url}/authn/login`, {
    method: 'POST',
    headers: { 'X-Okapi-Tenant': tenant, 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const token = login.headers.get('x-okapi-token');
  const get = async (query, offset) => {
    const params = new URLSearchParams({ query, limit: '50', offset: String(offset) });
    const response = await fetch(`${url}/search/instances?${params}`, {
      headers: { 'X-Okapi-Tenant': tenant, 'X-Okapi-Token': token },
    });
    return (await response.json()).instances;
  };
  const found = new Set();
  for (let offset = 0; found.size < count && offset < 10_000; offset += 997) {
    for (const instance of await get('cql.allRecords=1', offset)) {
      for (const word of (instance.title || '').toLowerCase().match(/\p{L}{5,}/gu) || []) {
        if (found.size < count) found.add(word);
      }
    }
  }
  return [...found];
}

// Marks the moments the login form and the first results enter the document.
function marks() {
  window.__marks = {};
  new MutationObserver(() => {
    if (!window.__marks.login && document.getElementById('login-username')) {
      window.__marks.login = performance.now();
    }
    const results = document.querySelector('.search-results');
    if (!window.__marks.results && results?.childElementCount && !results.hasAttribute('aria-busy')) {
      window.__marks.results = performance.now();
    }
  }).observe(document, { subtree: true, childList: true, attributes: true });
}

/** Submits `word` from the search box; ms until the frame after the results are shown. */
async function submit(word) {
  const form = document.querySelector('form.search-form');
  const input = form.querySelector('.search-words input');
  const results = document.querySelector('.search-results');
  const shown = () => new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      if (!results.hasAttribute('aria-busy')) {
        observer.disconnect();
        requestAnimationFrame(() => resolve(performance.now()));
      }
    });
    observer.observe(results, { attributes: true, attributeFilter: ['aria-busy'] });
  });
  input.value = word;
  const done = shown();
  const start = performance.now();
  form.requestSubmit();
  return (await done) - start;
}

/** Types `word` a key every 100 ms; ms from the last key until its results are shown. */
async function type(word) {
  const input = document.querySelector('form.search-form .search-words input');
  const results = document.querySelector('.search-results');
  input.value = '';
  for (let i = 1; i < word.length; i++) {
    input.value = word.slice(0, i);
    input.dispatchEvent(new Event('input', { bubbles: true }));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const start = performance.now();
  input.value = word;
  input.dispatchEvent(new Event('input', { bubbles: true }));
  // Shown once the results have been busy with this last query and are busy no more.
  await new Promise((resolve) => {
    let seenBusy = false;
    const observer = new MutationObserver(() => {
      if (results.hasAttribute('aria-busy')) seenBusy = true;
      else if (seenBusy) {
        observer.disconnect();
        requestAnimationFrame(resolve);
      }
    });
    observer.observe(results, { attributes: true, attributeFilter: ['aria-busy'] });
  });
  return performance.now() - start;
}

function summary(name, times) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const line = `${name}: n=${sorted.length} median ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, max ${sorted.at(-1).toFixed(1)} ms`;
  console.log(line);
}

const list = await words(searches);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: FLAGS });

// The first load, with nothing cached: address to login form.
const cold = [];
for (let i = 0; i < 10; i++) {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  await context.addInitScript(marks);
  const page = await context.newPage();
  await page.goto(`${url}/?tenant=${tenant}`);
  await page.waitForFunction(() => window.__marks.login);
  cold.push(await page.evaluate(() => window.__marks.login));
  await context.close();
}
summary('first load, to the login form', cold);

const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
await context.addInitScript(marks);
const page = await context.newPage();
await page.goto(`${url}/?tenant=${tenant}`);
await page.getByLabel('Username').fill(username);
await page.getByLabel('Password').fill(password);
await page.getByRole('button', { name: 'Log in' }).click();
await page.getByRole('navigation', { name: 'Main' }).waitFor();

// A logged-in librarian opening a saved search: address to its results on the page.
const saved = [];
for (const word of list.slice(0, 10)) {
  await page.goto('about:blank');
  await page.goto(`${url}/#/search?q=${encodeURIComponent(word)}`);
  await page.waitForFunction(() => window.__marks.results, null, { timeout: 30_000 });
  saved.push(await page.evaluate(() => window.__marks.results));
}
summary('first load of a search, logged in', saved);

const submitted = [];
for (const word of list) submitted.push(await page.evaluate(submit, word));
summary('search from the box (results and facets)', submitted);

const typed = [];
for (const word of list.slice(0, 30)) typed.push(await page.evaluate(type, word));
summary('typing: last key to results', typed);

await browser.close();
