// The check-out and check-in desks. Both take a barcode scanner's input (a barcode then
// Enter) item after item: each scan is queued at once and the field cleared, so a scan
// typed while the previous one is still with the server is never lost, and the results
// are listed newest first with FOLIO's own messages.
import { api, ApiError, cqlString, errorBox, formatDate, go, h, nameOf, session, view } from './core.js';

view('checkout', 'Check out', renderCheckOut);
view('checkin', 'Check in', renderCheckIn);

// ---- Shared by both desks ----

/**
 * A text field that hands each Enter-terminated value to `onScan` and clears itself at
 * once, so the next scan can follow while the last is still being handled.
 */
function scanField(id, label, onScan) {
  const input = h('input', {
    id, type: 'text', autocomplete: 'off', spellcheck: 'false', inputmode: 'text', class: 'desk-scan-input',
  });
  input.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    const barcode = input.value.trim();
    input.value = '';
    if (barcode) onScan(barcode);
  });
  return { input, field: h('div', { class: 'field' }, h('label', { for: id }, label), input) };
}

/** Runs `work` for each pushed value in turn: scans reach the server in the order made. */
function serialQueue(work) {
  let tail = Promise.resolve();
  return (value) => {
    tail = tail.then(() => work(value)).catch(() => {
      // `work` shows its own errors; a failure must not stop the scans behind it.
    });
    return tail;
  };
}

/** Puts focus back on the scan field unless the user has moved on to another control. */
function refocus(input) {
  const active = document.activeElement;
  if (input.isConnected && (!active || active === document.body || active === input)) input.focus();
}

/** A visually hidden live region: each result is read out once. */
function announcer() {
  const region = h('p', { class: 'desk-announce', role: 'status', 'aria-live': 'polite' });
  region.say = (text) => {
    region.textContent = text;
  };
  return region;
}

/** Every message of a refusal, one per error (a 422 may give several reasons). */
function refusalMessages(error) {
  const errors = refusalErrors(error);
  return errors.length ? errors.map((e) => e.message || e.code) : [error.message || String(error)];
}

function refusalErrors(error) {
  if (!(error instanceof ApiError) || !error.body) return [];
  try {
    const body = JSON.parse(error.body);
    return Array.isArray(body.errors) ? body.errors : [];
  } catch {
    return [];
  }
}

function messageList(messages) {
  return h('ul', { class: 'desk-messages' }, messages.map((message) => h('li', {}, message)));
}

/** `Last, First Middle` as FOLIO's desks show a person. */
function personName(person) {
  const personal = person?.personal || person || {};
  const first = [personal.preferredFirstName || personal.firstName, personal.middleName].filter(Boolean).join(' ');
  return [personal.lastName, first].filter(Boolean).join(', ') || person?.username || 'Unnamed patron';
}

function money(amount) {
  return (Math.abs(Number(amount) || 0) < 0.005 ? 0 : Number(amount)).toFixed(2);
}

function needsServicePoint() {
  return session.servicePointId ? null : 'Choose a service point in the bar first.';
}

// ---- Check-out desk ----

function renderCheckOut(container) {
  const desk = { patron: null, pane: null, loans: [], done: 0 };
  const announce = announcer();
  const patronStatus = h('div', { 'aria-live': 'polite' });
  const patronInput = h('input', { id: 'checkout-patron', type: 'text', autocomplete: 'off', spellcheck: 'false' });
  const patronForm = h('form', { class: 'row desk-find', role: 'search', 'aria-label': 'Find patron' },
    h('div', { class: 'field' },
      h('label', { for: 'checkout-patron' }, 'Patron barcode or name'), patronInput),
    h('button', { type: 'submit' }, 'Find patron'));
  const pane = h('section', { class: 'desk-pane panel', 'aria-labelledby': 'checkout-patron-name', hidden: true });
  const scan = scanField('checkout-item', 'Item barcode', (barcode) => {
    const row = pendingRow(barcode, 'Checking out');
    log.prepend(row);
    queue({ barcode, row, patron: desk.patron });
  });
  const log = h('ul', { class: 'desk-log', 'aria-label': 'Checked out this session' });
  const logHeading = h('h2', { id: 'checkout-log' }, 'Checked out this session');
  const endSession = h('button', { type: 'button', class: 'secondary' }, 'New patron / End session');
  endSession.addEventListener('click', () => go('checkout'));
  const items = h('section', { class: 'desk-items', 'aria-labelledby': 'checkout-log', hidden: true },
    h('div', { class: 'row' }, scan.field, endSession), logHeading, log);

  const queue = serialQueue((scanned) => checkOut(scanned));
  /** One scan: the loan, or every reason it was refused with an override if FOLIO allows one. */
  async function checkOut({ barcode, row, patron }, overrideBlocks) {
    const missing = needsServicePoint();
    if (missing) return showRefusal(row, barcode, [missing], null, patron);
    try {
      const loan = await api('/circulation/check-out-by-barcode', {
        method: 'POST',
        body: {
          itemBarcode: barcode, userBarcode: patron.barcode, servicePointId: session.servicePointId,
          ...(overrideBlocks ? { overrideBlocks } : {}),
        },
      });
      row.replaceWith(loanRow(loan));
      desk.done += 1;
      logHeading.textContent = `Checked out this session (${desk.done})`;
      announce.say(`Checked out ${loan.item?.title || barcode}, due ${formatDate(loan.dueDate, true)}.`);
      if (desk.patron === patron) addLoan(loan);
    } catch (error) {
      if (error.status === 401) throw error;
      showRefusal(row, barcode, refusalMessages(error), overridable(error), patron);
    } finally {
      refocus(scan.input);
    }
  }

  function showRefusal(row, barcode, messages, blocks, patron) {
    const failed = refusedRow(barcode, messages);
    if (blocks) failed.append(overrideControl(blocks, (overrideBlocks) => {
      const retry = pendingRow(barcode, 'Checking out with an override');
      failed.replaceWith(retry);
      return checkOut({ barcode, row: retry, patron }, overrideBlocks);
    }));
    row.replaceWith(failed);
    announce.say(`Not checked out: ${barcode}. ${messages.join(' ')}`);
  }

  function addLoan(loan) {
    desk.loans.push(loan);
    desk.loans.sort((a, b) => String(a.dueDate).localeCompare(String(b.dueDate)));
    desk.pane?.showLoans(desk.loans);
  }

  async function findPatron(text) {
    patronStatus.replaceChildren(h('p', { class: 'muted' }, 'Looking up…'));
    try {
      const found = await lookUpPatron(text);
      if (!container.isConnected) return;
      if (found.length === 1) {
        patronStatus.replaceChildren();
        choosePatron(found[0]);
      } else if (found.length === 0) {
        patronStatus.replaceChildren(errorBox(`No patron has the barcode or name “${text}”.`));
        patronInput.select();
      } else {
        patronStatus.replaceChildren(pickList(found, choosePatron));
        patronStatus.querySelector('button')?.focus();
      }
    } catch (error) {
      patronStatus.replaceChildren(errorBox(error));
    }
  }

  /** A new patron starts a new session: the last one's list goes with it. */
  function choosePatron(user) {
    patronStatus.replaceChildren();
    desk.patron = user;
    desk.loans = [];
    desk.done = 0;
    log.replaceChildren();
    logHeading.textContent = 'Checked out this session';
    items.querySelector('.error')?.remove();
    scan.input.disabled = false;
    patronInput.value = user.barcode || '';
    desk.pane = patronPane(pane, user, desk);
    pane.hidden = false;
    items.hidden = false;
    if (!user.barcode) {
      scan.input.disabled = true;
      items.prepend(errorBox('This patron has no barcode, and a check-out needs one: add it to the user record.'));
      return;
    }
    scan.input.focus();
    announce.say(`Patron ${personName(user)}. Scan the items.`);
  }

  patronForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = patronInput.value.trim();
    if (text) findPatron(text);
  });

  container.append(
    h('h1', {}, 'Check out'),
    patronForm, patronStatus,
    h('div', { class: 'desk' }, pane, items),
    announce);
  patronInput.focus();
}

/**
 * Patrons a scanned barcode or a typed name stands for: the barcode first (a scan is
 * exact), else last name, first name or username by their beginnings, "Last, First" or
 * "First Last".
 */
async function lookUpPatron(text) {
  const byBarcode = await api('/users', { query: { query: `barcode==${cqlString(text)}`, limit: 2 } });
  if (byBarcode.users.length) return byBarcode.users;
  const words = text.split(/[\s,]+/).filter(Boolean);
  let query;
  if (words.length >= 2) {
    const [a, b] = [words[0], words.at(-1)];
    query = `(personal.lastName==${cqlPrefix(a)} and personal.firstName==${cqlPrefix(b)})`
      + ` or (personal.firstName==${cqlPrefix(a)} and personal.lastName==${cqlPrefix(b)})`;
  } else {
    query = ['personal.lastName', 'personal.firstName', 'username'].map((index) => `${index}==${cqlPrefix(text)}`).join(' or ');
  }
  const byName = await api('/users', {
    query: { query: `(${query}) sortBy personal.lastName personal.firstName`, limit: 10 },
  });
  return byName.users;
}

/** A CQL string matching values that begin with `text`: its own masking characters escaped. */
function cqlPrefix(text) {
  return `"${String(text).replace(/[\\"*?^]/g, (c) => `\\${c}`)}*"`;
}

function pickList(users, choose) {
  return h('div', { class: 'desk-pick' },
    h('p', { id: 'checkout-pick' }, `${users.length === 10 ? 'The first 10' : users.length} patrons match: choose one.`),
    h('ul', { 'aria-labelledby': 'checkout-pick' }, users.map((user) => h('li', {},
      h('button', { type: 'button', class: 'secondary', onclick: () => choose(user) },
        personName(user), user.barcode ? ` (${user.barcode})` : '', user.active === false ? ' · inactive' : '')))));
}

/**
 * Fills the patron pane: who, standing (active, expiry, blocks, fee/fine balance), open
 * loans and open requests. Each part loads on its own and shows its own error.
 */
function patronPane(pane, user, desk) {
  const slot = (label) => h('div', { class: 'desk-slot' }, h('p', { class: 'muted' }, `Loading ${label}…`));
  const group = h('dd', {}, '…');
  const balance = h('dd', {}, '…');
  const blocks = h('div', { class: 'desk-blocks' });
  const loans = slot('loans');
  const requests = slot('requests');
  pane.replaceChildren(
    h('h2', { id: 'checkout-patron-name' }, personName(user)),
    standing(user),
    blocks,
    h('dl', { class: 'facts' },
      h('dt', {}, 'Barcode'), h('dd', {}, user.barcode || '(none)'),
      h('dt', {}, 'Patron group'), group,
      h('dt', {}, 'Expires'), h('dd', {}, user.expirationDate ? formatDate(user.expirationDate) : 'never'),
      h('dt', {}, 'Fees/fines owed'), balance),
    h('h3', { id: 'checkout-loans' }, 'Open loans'), loans,
    h('h3', { id: 'checkout-requests' }, 'Open requests'), requests);

  const fail = (target) => (error) => target.replaceChildren(errorBox(error));
  nameOf('patronGroups', user.patronGroup).then((name) => { group.textContent = name || '(none)'; }, fail(group));
  loadBlocks(user).then((list) => blocks.replaceChildren(...blocksBox(list)), fail(blocks));
  loadBalance(user).then((owed) => {
    balance.replaceChildren(owed > 0 ? h('strong', { class: 'desk-owed' }, money(owed)) : money(owed));
  }, fail(balance));
  const showLoans = (list) => loans.replaceChildren(loansTable(list));
  api('/circulation/loans', {
    query: { query: `userId==${user.id} and status.name=="Open" sortBy dueDate`, limit: 200 },
  }).then((body) => {
    // Loans made while these loaded are kept; a patron chosen since has their own list.
    if (desk.patron !== user) return;
    desk.loans = [...body.loans, ...desk.loans.filter((l) => !body.loans.some((b) => b.id === l.id))];
    showLoans(desk.loans);
  }, fail(loans));
  api('/circulation/requests', {
    query: { query: `requesterId==${user.id} and status=="Open*" sortBy requestDate`, limit: 100 },
  }).then((body) => requests.replaceChildren(requestsList(body.requests)), fail(requests));
  return { showLoans };
}

/** Inactive or expired, said before anything is scanned (FOLIO refuses both). */
function standing(user) {
  const expired = user.expirationDate && new Date(user.expirationDate) < new Date();
  if (user.active === false) return h('p', { class: 'warn' }, 'This patron is inactive: check-outs will be refused.');
  if (expired) return h('p', { class: 'warn' }, `This patron's record expired on ${formatDate(user.expirationDate)}.`);
  return h('p', { class: 'ok' }, 'Active');
}

/** Manual blocks still in force and automated ones, each with what it blocks. */
async function loadBlocks(user) {
  const [manual, automated] = await Promise.all([
    api('/manualblocks', { query: { query: `userId==${user.id}`, limit: 100 } }),
    api(`/automated-patron-blocks/${user.id}`),
  ]);
  const now = new Date();
  const inForce = manual.manualblocks.filter((block) =>
    !block.expirationDate || new Date(block.expirationDate) > now);
  return [
    ...inForce.map((block) => ({
      message: block.desc || block.patronMessage || 'Manual block',
      borrowing: block.borrowing, renewals: block.renewals, requests: block.requests,
    })),
    ...automated.automatedPatronBlocks.map((block) => ({
      message: block.message || 'Automated block',
      borrowing: block.blockBorrowing, renewals: block.blockRenewals, requests: block.blockRequests,
    })),
  ];
}

function blocksBox(blocks) {
  if (!blocks.length) return [];
  const what = (block) => ['borrowing', 'renewals', 'requests'].filter((key) => block[key]).join(', ');
  return [h('div', { class: 'desk-blocked', role: 'alert' },
    h('strong', {}, blocks.length === 1 ? 'Patron blocked' : `Patron blocked (${blocks.length})`),
    h('ul', {}, blocks.map((block) => h('li', {}, block.message, what(block) ? ` (blocks ${what(block)})` : ''))))];
}

async function loadBalance(user) {
  const body = await api('/accounts', {
    query: { query: `userId==${user.id} and status.name=="Open"`, limit: 1000 },
  });
  return body.accounts.reduce((sum, account) => sum + (Number(account.remaining) || 0), 0);
}

function loansTable(loans) {
  if (!loans.length) return h('p', { class: 'muted' }, 'None.');
  const now = new Date();
  return h('table', { class: 'desk-loans', 'aria-labelledby': 'checkout-loans' },
    h('thead', {}, h('tr', {}, ['Title', 'Barcode', 'Due'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, loans.map((loan) => {
      const overdue = loan.dueDate && new Date(loan.dueDate) < now;
      return h('tr', {},
        h('td', {}, loan.item?.title || ''),
        h('td', {}, loan.item?.barcode || ''),
        h('td', { class: overdue ? 'desk-overdue' : null },
          formatDate(loan.dueDate), overdue ? ' (overdue)' : ''));
    })));
}

function requestsList(requests) {
  if (!requests.length) return h('p', { class: 'muted' }, 'None.');
  return h('ul', { class: 'desk-requests', 'aria-labelledby': 'checkout-requests' }, requests.map((request) =>
    h('li', {}, `${request.requestType}: `, h('strong', {}, request.item?.title || 'an item'),
      ` — ${request.status}`,
      request.pickupServicePoint ? `, pick up at ${request.pickupServicePoint.name}` : '')));
}

function pendingRow(barcode, doing) {
  return h('li', { class: 'desk-pending' }, `${doing} ${barcode}…`);
}

function loanRow(loan) {
  const item = loan.item || {};
  return h('li', { class: 'desk-done' },
    h('strong', {}, item.title || '(no title)'),
    h('span', { class: 'desk-meta' }, `Barcode ${item.barcode || ''}`, item.callNumber ? ` · ${item.callNumber}` : ''),
    h('span', {}, 'Due ', h('strong', {}, formatDate(loan.dueDate, true))),
    loan.action === 'checkedOutThroughOverride'
      ? h('span', { class: 'desk-meta' }, `Overridden: ${loan.actionComment || ''}`) : null);
}

function refusedRow(barcode, messages) {
  return h('li', { class: 'desk-refused' },
    h('strong', {}, `Not checked out: ${barcode}`), messageList(messages));
}

/**
 * The blocks an override would lift, when every reason given can be overridden; null
 * when one cannot. A reason the user lacks the permission for is said instead.
 */
function overridable(error) {
  const errors = refusalErrors(error);
  if (!errors.length || !errors.every((e) => e.overridableBlock)) return null;
  const missing = errors.flatMap((e) => e.overridableBlock.missingPermissions || []);
  if (missing.length) return { missing };
  return { names: [...new Set(errors.map((e) => e.overridableBlock.name))] };
}

/**
 * An "Override" button that asks for the reason (and for a due date when the loan
 * policy gives none), then hands FOLIO's `overrideBlocks` to `retry`.
 */
function overrideControl(blocks, retry) {
  if (blocks.missing) {
    return h('p', { class: 'muted' }, `You may not override this (it needs ${blocks.missing.join(', ')}).`);
  }
  const wrap = h('div', { class: 'desk-override' });
  const open = h('button', { type: 'button', class: 'secondary' }, 'Override');
  open.addEventListener('click', () => {
    const n = ++overrideForms;
    const comment = h('input', { id: `override-comment-${n}`, type: 'text', required: true, autocomplete: 'off' });
    const needsDue = blocks.names.includes('itemNotLoanableBlock');
    const due = needsDue ? h('input', { id: `override-due-${n}`, type: 'date', required: true }) : null;
    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    const form = h('form', { class: 'desk-override-form' },
      h('div', { class: 'field' }, h('label', { for: comment.id }, 'Reason for the override'), comment),
      due ? h('div', { class: 'field' }, h('label', { for: due.id }, 'Due date'), due) : null,
      h('div', { class: 'row' }, h('button', { type: 'submit' }, 'Override and check out'), cancel));
    cancel.addEventListener('click', () => {
      wrap.replaceChildren(open);
      open.focus();
    });
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const overrideBlocks = { comment: comment.value.trim() };
      for (const name of blocks.names) overrideBlocks[name] = {};
      if (due) overrideBlocks.itemNotLoanableBlock = { dueDate: endOfDay(due.value) };
      retry(overrideBlocks);
    });
    wrap.replaceChildren(form);
    comment.focus();
  });
  wrap.append(open);
  return wrap;
}
let overrideForms = 0;

/** The end of a `YYYY-MM-DD` day in the browser's time zone, as FOLIO's due dates are. */
function endOfDay(day) {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y, m - 1, d, 23, 59, 59).toISOString();
}

// ---- Check-in desk ----

function renderCheckIn(container) {
  const announce = announcer();
  const log = h('ul', { class: 'desk-log', 'aria-label': 'Checked in this session' });
  const logHeading = h('h2', { id: 'checkin-log' }, 'Checked in this session');
  let done = 0;
  const scan = scanField('checkin-item', 'Item barcode', (barcode) => {
    const row = pendingRow(barcode, 'Checking in');
    log.prepend(row);
    queue({ barcode, row });
  });
  const queue = serialQueue(async ({ barcode, row }) => {
    const missing = needsServicePoint();
    try {
      if (missing) throw new Error(missing);
      const answer = await api('/circulation/check-in-by-barcode', {
        method: 'POST',
        body: { itemBarcode: barcode, servicePointId: session.servicePointId, checkInDate: new Date().toISOString() },
      });
      const returned = await describeReturn(answer);
      row.replaceWith(returnRow(answer, returned));
      done += 1;
      logHeading.textContent = `Checked in this session (${done})`;
      announce.say(`Checked in ${answer.item?.title || barcode}. ${returned.route}.`);
    } catch (error) {
      if (error.status === 401) throw error;
      const messages = refusalMessages(error);
      row.replaceWith(h('li', { class: 'desk-refused' },
        h('strong', {}, `Not checked in: ${barcode}`), messageList(messages)));
      announce.say(`Not checked in: ${barcode}. ${messages.join(' ')}`);
    } finally {
      refocus(scan.input);
    }
  });
  container.append(
    h('h1', {}, 'Check in'),
    h('section', { class: 'desk-items', 'aria-labelledby': 'checkin-log' }, scan.field, logHeading, log),
    announce);
  scan.input.focus();
}

/**
 * Where a returned item goes, in words: the hold shelf for its requester, in transit to
 * a service point (for a request or home), or back on the shelf; and any fine.
 */
async function describeReturn(answer) {
  const item = answer.item || {};
  const status = item.status?.name || '';
  const slip = answer.staffSlipContext || {};
  const requester = slip.requester || (isForRequest(status) ? await requesterOf(item) : null);
  const who = requester ? `${personName(requester)}${requester.barcode ? ` (${requester.barcode})` : ''}` : '';
  let route;
  if (status === 'Awaiting pickup') {
    route = who ? `Hold shelf for ${who}` : 'Hold shelf';
  } else if (status === 'Awaiting delivery') {
    route = who ? `Awaiting delivery to ${who}` : 'Awaiting delivery';
  } else if (status === 'In transit') {
    const to = slip.item?.toServicePoint || await nameOf('servicePoints', item.inTransitDestinationServicePointId);
    route = `In transit to ${to || 'another service point'}${who ? ` for ${who}` : ''}`;
  } else if (status === 'Available') {
    route = `Back to the shelf${item.location?.name ? ` (${item.location.name})` : ''}`;
  } else {
    route = status;
  }
  return { route, routed: Boolean(who) || status === 'In transit', fines: await finesOf(answer.loan) };
}

function isForRequest(status) {
  return ['Awaiting pickup', 'Awaiting delivery', 'In transit'].includes(status);
}

/** The requester of the request the item now serves, for a server whose check-in does not say. */
async function requesterOf(item) {
  const served = ['Open - Awaiting pickup', 'Open - Awaiting delivery', 'Open - In transit']
    .map((s) => `status==${cqlString(s)}`).join(' or ');
  const body = await api('/circulation/requests', {
    query: { query: `itemId==${item.id} and (${served}) sortBy position`, limit: 1 },
  });
  return body.requests[0]?.requester || null;
}

/** The open fees/fines of the closed loan (an overdue fine is charged at check-in). */
async function finesOf(loan) {
  if (!loan || !(loan.feesAndFines?.amountRemainingToPay > 0)) return [];
  const body = await api('/accounts', {
    query: { query: `loanId==${loan.id} and status.name=="Open"`, limit: 100 },
  });
  return body.accounts;
}

function returnRow(answer, returned) {
  const item = answer.item || {};
  const loan = answer.loan;
  const late = loan?.dueDate && loan.returnDate && new Date(loan.returnDate) > new Date(loan.dueDate);
  return h('li', { class: 'desk-done' },
    h('strong', {}, item.title || '(no title)'),
    h('span', { class: 'desk-meta' }, `Barcode ${item.barcode || ''}`, item.callNumber ? ` · ${item.callNumber}` : '',
      ` · Status: ${item.status?.name || ''}`),
    h('span', { class: returned.routed ? 'desk-route desk-route-away' : 'desk-route' }, returned.route),
    loan?.borrower ? h('span', { class: 'desk-meta' },
      `Returned by ${personName(loan.borrower)}`, late ? `, late (due ${formatDate(loan.dueDate)})` : '') : null,
    answer.inHouseUse ? h('span', { class: 'desk-meta' }, 'In-house use recorded') : null,
    returned.fines.map((account) => h('span', { class: 'desk-fine' },
      `${account.feeFineType || 'Fee/fine'} charged: ${money(account.amount)} (owed ${money(account.remaining)})`)));
}
