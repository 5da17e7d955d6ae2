// What every view shares: the session, the FOLIO API client, a small DOM builder, the
// view registry and cached reference-data names. Views import from here and nothing
// else; app.js wires them to the page.

/** Who is logged in, where: kept across reloads in localStorage (never the tokens,
 * which live in HttpOnly cookies). */
export const session = {
  tenant: localStorage.getItem('quire.tenant') || '',
  user: null,
  servicePointId: localStorage.getItem('quire.servicePoint') || '',
  servicePoints: [],
};

/** A refused request: the HTTP status and FOLIO's message in plain words. */
export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

let signedOut = () => {};
/** app.js says what to do when the session has ended. */
export function onSignedOut(handler) {
  signedOut = handler;
}

let refreshing = null;
/** Renews the access cookie with the refresh cookie, once for all requests waiting. */
function refresh() {
  refreshing ??= fetch('/authn/refresh', {
    method: 'POST',
    headers: { 'X-Okapi-Tenant': session.tenant },
    credentials: 'same-origin',
  })
    .then((response) => response.ok)
    .catch(() => false)
    .finally(() => {
      refreshing = null;
    });
  return refreshing;
}

/**
 * Calls the FOLIO API as the logged-in user. `query` becomes the query string (empty
 * values dropped); `body` is sent as JSON unless it is a string, Blob or FormData.
 * Answers parsed JSON, text, or null for 204; `raw: true` answers the Response.
 * Throws ApiError with the server's message on any non-2xx status.
 */
export async function api(path, options = {}) {
  const { method = 'GET', query, body, headers = {}, raw = false } = options;
  let url = path;
  if (query) {
    const pairs = Object.entries(query).filter(([, v]) => v !== undefined && v !== null && v !== '');
    if (pairs.length) url += (url.includes('?') ? '&' : '?') + new URLSearchParams(pairs);
  }
  const init = {
    method,
    headers: { 'X-Okapi-Tenant': session.tenant, Accept: 'application/json, text/plain', ...headers },
    credentials: 'same-origin',
  };
  if (body !== undefined) {
    if (typeof body === 'string' || body instanceof Blob || body instanceof FormData) {
      init.body = body;
    } else {
      init.body = JSON.stringify(body);
      init.headers['Content-Type'] = 'application/json';
    }
  }
  let response = await fetch(url, init);
  if (response.status === 401 && (await refresh())) response = await fetch(url, init);
  if (response.status === 401) {
    signedOut();
    throw new ApiError(401, 'Your session has ended: log in again.');
  }
  if (!response.ok) {
    const text = await response.text();
    throw new ApiError(response.status, errorMessage(text, response.status), text);
  }
  if (raw) return response;
  if (response.status === 204) return null;
  const type = response.headers.get('Content-Type') || '';
  return type.includes('json') ? response.json() : response.text();
}

/** FOLIO's error bodies come as `{errors:[{message}]}`, `{message}` or plain text. */
function errorMessage(text, status) {
  try {
    const body = JSON.parse(text);
    if (Array.isArray(body.errors) && body.errors.length) {
      return body.errors.map((e) => e.message || e.code).filter(Boolean).join('; ');
    }
    if (body.message) return body.message;
  } catch {
    // Plain text, as many FOLIO modules answer.
  }
  return text.trim() || `The server answered ${status}.`;
}

/**
 * Builds an element: `h('a', {href, class, onclick}, 'text', child, [more])`. Attributes
 * that are null, undefined or false are left out; `on*` ones become listeners. Strings
 * become text nodes, so record data is never parsed as HTML.
 */
export function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      element.addEventListener(key.slice(2), value);
    } else if (key === 'class') {
      element.className = value;
    } else if (key === 'value') {
      element.value = value;
    } else {
      element.setAttribute(key, value === true ? '' : value);
    }
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

/** An inline error where the failed action was, read out by screen readers. */
export function errorBox(error) {
  const message = error instanceof Error ? error.message : String(error);
  return h('p', { class: 'error', role: 'alert' }, message);
}

const views = new Map();
/**
 * Registers a view shown at `#/name[/arg...][?key=value]`:
 * `render(container, {args, params})` fills `container`, which is already on the page
 * and is replaced when the user moves on (so a late answer lands nowhere visible).
 */
export function view(name, title, render) {
  views.set(name, { title, render });
}
export function lookupView(name) {
  return views.get(name);
}

/** Moves to a view: `go('record', id)` or `go('search', {params})`. */
export function go(name, ...args) {
  const params = args.length && typeof args.at(-1) === 'object' ? args.pop() : null;
  let hash = `#/${[name, ...args.map(encodeURIComponent)].join('/')}`;
  if (params) {
    const query = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== '' && v != null));
    if ([...query].length) hash += `?${query}`;
  }
  if (location.hash === hash) window.dispatchEvent(new HashChangeEvent('hashchange'));
  else location.hash = hash;
}

/** The reference tables views name ids from: path and collection key. */
const REFERENCE = {
  locations: ['/locations', 'locations'],
  servicePoints: ['/service-points', 'servicepoints'],
  instanceFormats: ['/instance-formats', 'instanceFormats'],
  instanceTypes: ['/instance-types', 'instanceTypes'],
  materialTypes: ['/material-types', 'mtypes'],
  loanTypes: ['/loan-types', 'loantypes'],
  patronGroups: ['/groups', 'usergroups'],
  identifierTypes: ['/identifier-types', 'identifierTypes'],
  contributorNameTypes: ['/contributor-name-types', 'contributorNameTypes'],
  holdingsTypes: ['/holdings-types', 'holdingsTypes'],
  callNumberTypes: ['/call-number-types', 'callNumberTypes'],
  statisticalCodes: ['/statistical-codes', 'statisticalCodes'],
};
const referenceCache = new Map();
/** A Map from id to record of one reference table, fetched once per page load. */
export function reference(kind) {
  if (!referenceCache.has(kind)) {
    const [path, key] = REFERENCE[kind];
    const loaded = api(path, { query: { limit: 2000, query: 'cql.allRecords=1' } })
      .then((body) => new Map((body[key] || []).map((record) => [record.id, record])))
      .catch((error) => {
        referenceCache.delete(kind);
        throw error;
      });
    referenceCache.set(kind, loaded);
  }
  return referenceCache.get(kind);
}
/** The display name of `id` in a reference table, or the id itself when unknown. */
export async function nameOf(kind, id) {
  if (!id) return '';
  const record = (await reference(kind)).get(id);
  return record ? record.name || record.group || record.code || id : id;
}

/** `2026-11-30T10:00:00Z` as the browser's local date, or date and time. */
export function formatDate(iso, withTime = false) {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return withTime ? date.toLocaleString() : date.toLocaleDateString();
}

/** A CQL string literal: quotes and backslashes escaped. */
export function cqlString(value) {
  return `"${String(value).replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
