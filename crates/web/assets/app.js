// The page's entry: the login form, the bar (navigation, service point, log out) and
// the router that shows a registered view for each `#/name/...` address.
import { api, errorBox, go, h, lookupView, onSignedOut, reference, session } from './core.js';
import './search.js';
import './desk.js';
import './import.js';
import './bulk.js';
import './admin.js';

const main = document.getElementById('main');
const bar = document.getElementById('bar');

function showLogin(message) {
  session.user = null;
  bar.hidden = true;
  document.title = 'Log in · Quire';
  const tenant = h('input', {
    id: 'login-tenant', name: 'tenant', required: true, autocomplete: 'organization',
    value: new URLSearchParams(location.search).get('tenant') || session.tenant,
  });
  const username = h('input', { id: 'login-username', name: 'username', required: true, autocomplete: 'username' });
  const password = h('input', {
    id: 'login-password', name: 'password', type: 'password', required: true, autocomplete: 'current-password',
  });
  const status = h('div', { 'aria-live': 'polite' });
  if (message) status.append(errorBox(message));
  const form = h('form', { class: 'login', 'aria-labelledby': 'login-title' },
    h('h1', { id: 'login-title' }, 'Log in to Quire'),
    h('label', { for: 'login-tenant' }, 'Tenant'), tenant,
    h('label', { for: 'login-username' }, 'Username'), username,
    h('label', { for: 'login-password' }, 'Password'), password,
    h('button', { type: 'submit' }, 'Log in'),
    status);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    status.replaceChildren(h('p', { class: 'muted' }, 'Logging in…'));
    session.tenant = tenant.value.trim();
    try {
      await api('/authn/login-with-expiry', {
        method: 'POST',
        body: { username: username.value.trim(), password: password.value },
      });
      localStorage.setItem('quire.tenant', session.tenant);
      try {
        await start();
      } catch (error) {
        throw error.status === 401 ? new Error(cookiesRefused()) : error;
      }
    } catch (error) {
      status.replaceChildren(errorBox(error));
      password.select();
    }
  });
  main.replaceChildren(form);
  (tenant.value ? username : tenant).focus();
}

/**
 * Why a login that succeeded is not kept: the session lives in `Secure` cookies, which a
 * browser keeps only over HTTPS or from localhost.
 */
function cookiesRefused() {
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(location.hostname);
  return location.protocol === 'http:' && !local
    ? 'The password was right, but this browser keeps login cookies only over HTTPS: open Quire through https:// (a proxy with a certificate), or on this machine at http://localhost.'
    : 'The password was right, but the browser did not keep the login cookies: allow cookies for this site and try again.';
}

/** After a login or a reload: who we are and where we work, then the current view. */
async function start() {
  const self = await api('/bl-users/_self');
  session.user = self.user;
  const own = self.servicePointsUser?.servicePoints || [];
  session.servicePoints = own.length
    ? own
    : [...(await reference('servicePoints')).values()].sort((a, b) => a.name.localeCompare(b.name));
  const known = session.servicePoints.some((point) => point.id === session.servicePointId);
  if (!known) {
    session.servicePointId = self.servicePointsUser?.defaultServicePointId || session.servicePoints[0]?.id || '';
  }
  const select = document.getElementById('service-point');
  select.replaceChildren(...session.servicePoints.map((point) =>
    h('option', { value: point.id, selected: point.id === session.servicePointId }, point.name)));
  const personal = self.user.personal || {};
  document.getElementById('who').textContent =
    [personal.firstName, personal.lastName].filter(Boolean).join(' ') || self.user.username;
  bar.hidden = false;
  if (!location.hash || location.hash === '#/') go('search');
  else show();
}

document.getElementById('service-point').addEventListener('change', (event) => {
  session.servicePointId = event.target.value;
  localStorage.setItem('quire.servicePoint', session.servicePointId);
});

document.getElementById('logout').addEventListener('click', async () => {
  try {
    await api('/authn/logout', { method: 'POST' });
  } catch {
    // The cookies may be gone already; the login form is shown either way.
  }
  showLogin();
});

/** Shows the view the address names, in a fresh container. */
async function show() {
  if (!session.user) return;
  const [path, query = ''] = location.hash.replace(/^#\/?/, '').split('?');
  const [name, ...args] = path.split('/').map(decodeURIComponent);
  const found = lookupView(name) || lookupView('search');
  for (const link of bar.querySelectorAll('nav a')) {
    if (link.dataset.view === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  document.title = `${found.title} · Quire`;
  const container = h('div', { class: `view view-${name}` });
  main.replaceChildren(container);
  try {
    await found.render(container, { args, params: new URLSearchParams(query) });
  } catch (error) {
    if (container.isConnected && !(error.status === 401)) container.append(errorBox(error));
  }
}

window.addEventListener('hashchange', show);
onSignedOut(() => {
  if (session.user) showLogin('Your session has ended: log in again.');
});

if (session.tenant) {
  start().catch(() => showLogin());
} else {
  showLogin();
}
