// Bulk edit (mod-bulk-operations): records matched from an identifiers file or a query,
// rules set, the proposed changes previewed beside the originals, committed, their files
// downloaded, and undone.
import { api, errorBox, formatDate, go, h, reference, view } from './core.js';
import {
  announcer, fileChooser, fill, head, pager, POLL_MS, progressBar, saveFile, scroller, select, sleep,
} from './jobs.js';

const ENTITIES = [
  ['ITEM', 'Items'],
  ['HOLDINGS_RECORD', 'Holdings'],
  ['INSTANCE', 'Instances'],
  ['USER', 'Users'],
];
const entityName = (type) => ENTITIES.find(([t]) => t === type)?.[1] || type;
const ONE_RECORD = { ITEM: 'item', HOLDINGS_RECORD: 'holdings record', INSTANCE: 'instance', USER: 'user' };
const MANY_RECORDS = { ITEM: 'items', HOLDINGS_RECORD: 'holdings records', INSTANCE: 'instances', USER: 'users' };
/** "1 item", "3 items". */
const counted = (n, type) => `${n} ${(n === 1 ? ONE_RECORD : MANY_RECORDS)[type] || 'records'}`;

/** What an uploaded file's lines identify records by, per record type (FOLIO's choices). */
const IDENTIFIERS = {
  ITEM: [
    ['BARCODE', 'Barcode'], ['ID', 'Item UUID'], ['HRID', 'Item HRID'], ['FORMER_IDS', 'Former identifier'],
    ['ACCESSION_NUMBER', 'Accession number'], ['HOLDINGS_RECORD_ID', 'Holdings UUID'],
  ],
  HOLDINGS_RECORD: [
    ['ID', 'Holdings UUID'], ['HRID', 'Holdings HRID'], ['INSTANCE_HRID', 'Instance HRID'], ['ITEM_BARCODE', 'Item barcode'],
  ],
  INSTANCE: [['ID', 'Instance UUID'], ['HRID', 'Instance HRID'], ['ISBN', 'ISBN'], ['ISSN', 'ISSN']],
  USER: [
    ['BARCODE', 'User barcode'], ['ID', 'User UUID'], ['USER_NAME', 'Username'],
    ['EXTERNAL_SYSTEM_ID', 'External system ID'],
  ],
};
const QUERY_EXAMPLES = {
  ITEM: 'status.name=="Available" and materialTypeId=="…"',
  HOLDINGS_RECORD: 'permanentLocationId=="…"',
  INSTANCE: 'source=="MARC"',
  USER: 'active==true and patronGroup=="…"',
};

/** The item statuses FOLIO lets a bulk edit set. */
const ITEM_STATUSES = ['Available', 'Missing', 'Withdrawn', 'In process', 'In process (non-requestable)',
  'Intellectual item', 'Long missing', 'Restricted', 'Unavailable', 'Unknown'];

const ACTION_LABELS = {
  REPLACE_WITH: 'Replace with',
  CLEAR_FIELD: 'Clear',
  SET_TO_TRUE: 'Set to true',
  SET_TO_FALSE: 'Set to false',
  SET_TO_TRUE_INCLUDING_ITEMS: 'Set to true, items too',
  SET_TO_FALSE_INCLUDING_ITEMS: 'Set to false, items too',
  ADD_TO_EXISTING: 'Add',
  FIND_AND_REPLACE: 'Find and replace',
};
/** Actions that take no value. */
const NO_VALUE = new Set([
  'CLEAR_FIELD', 'SET_TO_TRUE', 'SET_TO_FALSE', 'SET_TO_TRUE_INCLUDING_ITEMS', 'SET_TO_FALSE_INCLUDING_ITEMS',
]);

/**
 * The changes offered per record type: FOLIO's option, its actions, and the kind of value
 * it takes (a reference table of core.js, the item statuses, a date, text, or a find and
 * its replacement).
 */
const FLAG = ['SET_TO_TRUE', 'SET_TO_FALSE'];
const REPLACE_OR_CLEAR = ['REPLACE_WITH', 'CLEAR_FIELD'];
const CHANGES = {
  ITEM: [
    { option: 'STATUS', label: 'Status', actions: ['REPLACE_WITH'], value: 'status' },
    { option: 'PERMANENT_LOCATION', label: 'Permanent location', actions: REPLACE_OR_CLEAR, value: 'locations' },
    { option: 'TEMPORARY_LOCATION', label: 'Temporary location', actions: REPLACE_OR_CLEAR, value: 'locations' },
    { option: 'PERMANENT_LOAN_TYPE', label: 'Permanent loan type', actions: ['REPLACE_WITH'], value: 'loanTypes' },
    { option: 'TEMPORARY_LOAN_TYPE', label: 'Temporary loan type', actions: REPLACE_OR_CLEAR, value: 'loanTypes' },
    { option: 'MATERIAL_TYPE', label: 'Material type', actions: ['REPLACE_WITH'], value: 'materialTypes' },
    { option: 'SUPPRESS_FROM_DISCOVERY', label: 'Suppress from discovery', actions: FLAG },
    { option: 'ADMINISTRATIVE_NOTE', label: 'Administrative note', actions: ['ADD_TO_EXISTING'], value: 'text' },
  ],
  HOLDINGS_RECORD: [
    { option: 'PERMANENT_LOCATION', label: 'Permanent location', actions: ['REPLACE_WITH'], value: 'locations' },
    { option: 'TEMPORARY_LOCATION', label: 'Temporary location', actions: REPLACE_OR_CLEAR, value: 'locations' },
    {
      option: 'SUPPRESS_FROM_DISCOVERY', label: 'Suppress from discovery',
      actions: [...FLAG, 'SET_TO_TRUE_INCLUDING_ITEMS', 'SET_TO_FALSE_INCLUDING_ITEMS'],
    },
    { option: 'ADMINISTRATIVE_NOTE', label: 'Administrative note', actions: ['ADD_TO_EXISTING'], value: 'text' },
  ],
  INSTANCE: [
    { option: 'SUPPRESS_FROM_DISCOVERY', label: 'Suppress from discovery', actions: FLAG },
    { option: 'STAFF_SUPPRESS', label: 'Staff suppress', actions: FLAG },
    { option: 'ADMINISTRATIVE_NOTE', label: 'Administrative note', actions: ['ADD_TO_EXISTING'], value: 'text' },
  ],
  USER: [
    { option: 'PATRON_GROUP', label: 'Patron group', actions: ['REPLACE_WITH'], value: 'patronGroups' },
    { option: 'EXPIRATION_DATE', label: 'Expiration date', actions: ['REPLACE_WITH'], value: 'date' },
    { option: 'EMAIL_ADDRESS', label: 'Email address', actions: ['FIND_AND_REPLACE'], value: 'findReplace' },
  ],
};

/** The preview columns shown unless all are asked for; changed columns are added. */
const KEY_COLUMNS = {
  ITEM: [
    'Barcode', 'Instance (Title, Publisher, Publication date)', 'Status', 'Item effective location',
    'Permanent loan type', 'Suppress from discovery',
  ],
  HOLDINGS_RECORD: [
    'Holdings HRID', 'Instance (Title, Publisher, Publication date)', 'Holdings permanent location',
    'Holdings temporary location', 'Suppress from discovery',
  ],
  INSTANCE: ['Instance HRID', 'Resource title', 'Source', 'Suppress from discovery', 'Staff suppress'],
  USER: ['User name', 'Barcode', 'Last name', 'First name', 'Patron group', 'Expiration date', 'Email', 'Active'],
};

const BULK_RUNNING = new Set([
  'RETRIEVING_RECORDS', 'EXECUTING_QUERY', 'SAVING_RECORDS_LOCALLY', 'DATA_MODIFICATION_IN_PROGRESS', 'APPLY_CHANGES',
]);
const BULK_ENDED = new Set(['COMPLETED', 'COMPLETED_WITH_ERRORS', 'FAILED', 'CANCELLED']);
const BULK_STATUS = {
  NEW: 'Uploaded, not matched yet',
  RETRIEVING_RECORDS: 'Finding the records',
  EXECUTING_QUERY: 'Running the query',
  SAVING_RECORDS_LOCALLY: 'Saving the records',
  DATA_MODIFICATION: 'Records found: choose the changes',
  DATA_MODIFICATION_IN_PROGRESS: 'Preparing the preview',
  REVIEW_CHANGES: 'Review the changes',
  APPLY_CHANGES: 'Committing the changes',
  COMPLETED: 'Completed',
  COMPLETED_WITH_ERRORS: 'Completed with errors',
  FAILED: 'Failed',
  CANCELLED: 'Cancelled',
};
const bulkStatus = (op) => BULK_STATUS[op.status] || op.status;

/** The files an operation offers, by the link fields FOLIO fills as they come to exist. */
const BULK_FILES = [
  ['linkToTriggeringCsvFile', 'TRIGGERING_FILE', 'Identifiers'],
  ['linkToMatchedRecordsCsvFile', 'MATCHED_RECORDS_FILE', 'Matched records'],
  ['linkToMatchedRecordsErrorsCsvFile', 'RECORD_MATCHING_ERROR_FILE', 'Matching errors'],
  ['linkToModifiedRecordsCsvFile', 'PROPOSED_CHANGES_FILE', 'Proposed changes'],
  ['linkToCommittedRecordsCsvFile', 'COMMITTED_RECORDS_FILE', 'Changed records'],
  ['linkToCommittedRecordsErrorsCsvFile', 'COMMITTING_CHANGES_ERROR_FILE', 'Commit errors'],
];

/** The rules last sent per operation, to fill the form again when they are changed. */
const sentRules = new Map();

view('bulk', 'Bulk edit', async (container, { args }) => {
  if (args[0]) await showOperation(container, args[0]);
  else await showBulkStart(container);
});

async function showBulkStart(container) {
  const entity = select({ id: 'bulk-entity' }, ENTITIES, 'ITEM');
  const identifierType = h('select', { id: 'bulk-identifier' });
  const chooser = fileChooser({
    id: 'bulk-file',
    label: 'Identifiers file',
    accept: '.csv,.txt',
    hint: 'One identifier a line. Choose a file, or drop it here.',
  });
  const query = h('textarea', { id: 'bulk-query', rows: 3, 'aria-describedby': 'bulk-query-hint' });
  const queryHint = h('p', { id: 'bulk-query-hint', class: 'muted' });
  const byFile = h('input', { type: 'radio', name: 'bulk-from', id: 'bulk-from-file', value: 'file', checked: true });
  const byQuery = h('input', { type: 'radio', name: 'bulk-from', id: 'bulk-from-query', value: 'query' });
  const fileFields = h('div', { class: 'jobs-fields' },
    h('div', { class: 'field' }, h('label', { for: 'bulk-identifier' }, 'Identifier type'), identifierType),
    chooser.element);
  const queryFields = h('div', { class: 'field', hidden: true },
    h('label', { for: 'bulk-query' }, 'Query (CQL)'), query, queryHint);
  const status = h('div', { class: 'jobs-status' });
  const start = h('button', { type: 'submit' }, 'Find records');
  const form = h('form', { class: 'panel jobs-form', 'aria-labelledby': 'bulk-title' },
    h('h1', { id: 'bulk-title' }, 'Bulk edit'),
    h('div', { class: 'field' }, h('label', { for: 'bulk-entity' }, 'Record type'), entity),
    h('fieldset', { class: 'jobs-choice' }, h('legend', {}, 'Find the records by'),
      h('span', { class: 'check' }, byFile, h('label', { for: 'bulk-from-file' }, 'A file of identifiers')),
      h('span', { class: 'check' }, byQuery, h('label', { for: 'bulk-from-query' }, 'A query'))),
    fileFields, queryFields,
    h('div', { class: 'row' }, start),
    status);
  const recent = h('section', { class: 'jobs-recent', 'aria-labelledby': 'bulk-recent-title' },
    h('h2', { id: 'bulk-recent-title' }, 'Recent bulk edits'));
  container.append(h('div', { class: 'jobs-layout' }, form, recent));

  const fitEntity = () => {
    identifierType.replaceChildren(...IDENTIFIERS[entity.value].map(([value, text]) => h('option', { value }, text)));
    query.placeholder = QUERY_EXAMPLES[entity.value];
    queryHint.textContent = `A storage query, for example ${QUERY_EXAMPLES[entity.value]}`;
  };
  const fitApproach = () => {
    fileFields.hidden = !byFile.checked;
    queryFields.hidden = byFile.checked;
    chooser.input.required = byFile.checked;
    query.required = !byFile.checked;
  };
  entity.addEventListener('change', fitEntity);
  byFile.addEventListener('change', fitApproach);
  byQuery.addEventListener('change', fitApproach);
  fitEntity();
  fitApproach();

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    start.disabled = true;
    status.replaceChildren(h('p', { class: 'muted', role: 'status' }, 'Finding the records…'));
    try {
      const operation = byFile.checked
        ? await startFromFile(entity.value, identifierType.value, chooser.input.files[0])
        : await api('/bulk-operations/query', {
          method: 'POST', body: { entityType: entity.value, query: query.value.trim() },
        });
      go('bulk', operation.id);
    } catch (error) {
      status.replaceChildren(errorBox(error));
      start.disabled = false;
    }
  });
  await listOperations(recent);
}

/** Uploads the identifiers (the multipart `file` part FOLIO's clients send), then matches them. */
async function startFromFile(entityType, identifierType, file) {
  if (!file) throw new Error('Choose a file of identifiers first.');
  const form = new FormData();
  form.append('file', file, file.name);
  const operation = await api('/bulk-operations/upload', {
    method: 'POST', query: { entityType, identifierType }, body: form,
  });
  return api(`/bulk-operations/${operation.id}/start`, { method: 'POST', body: { step: 'UPLOAD' } });
}

/** What an operation started from, in a few words. */
function startedFrom(op) {
  if (op.rollbackOf) return 'Undo of an earlier edit';
  if (op.approach === 'QUERY') return `Query: ${op.userFriendlyQuery || op.cqlQuery || ''}`;
  const kind = IDENTIFIERS[op.entityType]?.find(([value]) => value === op.entityCustomIdentifierType)?.[1];
  return `File of ${(kind || op.entityCustomIdentifierType || '').toLowerCase()}s`;
}

async function listOperations(section) {
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  section.append(body);
  while (section.isConnected) {
    const { bulkOperations: operations = [] } = await api('/bulk-operations', {
      query: { query: 'cql.allRecords=1 sortBy hrId/sort.descending', limit: 15 },
    });
    body.replaceChildren(operations.length ? operationTable(operations) : h('p', { class: 'muted' }, 'No bulk edits yet.'));
    if (!operations.some((op) => BULK_RUNNING.has(op.status))) return;
    await sleep(POLL_MS * 3);
  }
}

function operationTable(operations) {
  return scroller('Recent bulk edits', h('table', { class: 'jobs-table' },
    head('Edit', 'Records', 'Found by', 'Status', 'Matched', 'Committed', 'Errors', 'Started', 'Ended'),
    h('tbody', {}, operations.map((op) => h('tr', {},
      h('td', {}, h('a', { href: `#/bulk/${op.id}` }, `#${op.hrId}`)),
      h('td', {}, entityName(op.entityType)),
      h('td', { class: 'jobs-query' }, startedFrom(op)),
      h('td', {}, h('span', { class: `jobs-badge jobs-${op.status.toLowerCase()}` }, bulkStatus(op))),
      h('td', {}, String(op.matchedNumOfRecords)),
      h('td', {}, String(op.committedNumOfRecords)),
      h('td', {}, String(op.matchedNumOfErrors + op.committedNumOfErrors)),
      h('td', {}, formatDate(op.startTime, true)),
      h('td', {}, formatDate(op.endTime, true)))))));
}

/**
 * One operation. Its part below the facts follows its status: progress while the server
 * works, then the records found and the rules, then the proposed changes to commit, then
 * the result and its undo. Polling stops whenever the next move is the user's.
 */
async function showOperation(container, id) {
  const heading = h('h1', { tabindex: '-1' }, 'Bulk edit');
  const facts = h('dl', { class: 'facts' });
  const files = h('div', { class: 'jobs-files' });
  // The status badge and the progress bar show what it says.
  const say = announcer({ shown: false });
  const body = h('div', { class: 'jobs-body' });
  container.append(
    h('p', {}, h('a', { href: '#/bulk' }, 'New bulk edit and recent ones')),
    heading, h('div', { class: 'panel' }, facts, say.element, files), body);
  heading.focus();

  const page = { op: null, shown: null, progress: null };
  /** Polls until the operation waits for the user, redrawing the body at each new status. */
  page.watch = async () => {
    while (container.isConnected) {
      const op = await api(`/bulk-operations/${id}`);
      page.op = op;
      heading.textContent = `Bulk edit #${op.hrId}: ${entityName(op.entityType).toLowerCase()}`;
      showOperationFacts(facts, op);
      showFiles(files, op);
      const { current, total } = operationProgress(op);
      const words = BULK_RUNNING.has(op.status) ? `${bulkStatus(op)}: ${current} of ${total}` : bulkStatus(op);
      if (op.status !== page.shown) {
        page.shown = op.status;
        say.say(words);
        await showOperationBody(body, page);
      } else {
        say.tick(words);
      }
      page.progress?.update(current, total);
      if (!BULK_RUNNING.has(op.status)) return;
      await sleep(POLL_MS);
    }
  };
  /** Runs a step the user asked for, then watches the operation again. */
  page.act = async (button, place, work) => {
    button.disabled = true;
    try {
      await work();
      page.shown = null;
      await page.watch();
    } catch (error) {
      if (place.isConnected) place.append(errorBox(error));
      button.disabled = false;
    }
  };
  await page.watch();
}

/** How far the running step has got: matching counts identifiers, the rest records. */
function operationProgress(op) {
  if (op.status === 'RETRIEVING_RECORDS' || op.status === 'EXECUTING_QUERY') {
    return { current: op.processedNumOfRecords, total: op.totalNumOfRecords };
  }
  return { current: op.processedNumOfRecords, total: op.matchedNumOfRecords };
}

function showOperationFacts(facts, op) {
  const fact = (term, value) => (value === '' || value == null ? null : [h('dt', {}, term), h('dd', {}, value)]);
  const also = (n, words) => (n ? `, ${n} ${words}` : '');
  fill(facts, [
    fact('Status', h('span', { class: `jobs-badge jobs-${op.status.toLowerCase()}` }, bulkStatus(op))),
    fact('Records', entityName(op.entityType)),
    fact('Found by', startedFrom(op)),
    fact('Matched', `${op.matchedNumOfRecords} of ${op.totalNumOfRecords}`
      + `${also(op.matchedNumOfErrors, 'not matched')}${also(op.matchedNumOfWarnings, 'warnings')}`),
    BULK_ENDED.has(op.status) && fact('Committed', `${op.committedNumOfRecords}`
      + `${also(op.committedNumOfErrors, 'errors')}${also(op.committedNumOfWarnings, 'warnings')}`),
    fact('Started', formatDate(op.startTime, true)),
    fact('Ended', formatDate(op.endTime, true)),
    fact('Problem', op.errorMessage),
  ]);
}

/** The files the operation has so far, each a button; redrawn only when one is added. */
function showFiles(files, op) {
  const offered = BULK_FILES.filter(([link]) => op[link]);
  const kinds = offered.map(([, kind]) => kind).join();
  if (files.dataset.offered === kinds) return;
  files.dataset.offered = kinds;
  if (!offered.length) return files.replaceChildren();
  const place = h('div');
  const buttons = offered.map(([, kind, label]) => h('li', {}, downloadButton(op.id, kind, label, place)));
  files.replaceChildren(
    h('h2', { id: 'bulk-files-title' }, 'Files'),
    h('ul', { class: 'jobs-downloads', 'aria-labelledby': 'bulk-files-title' }, buttons),
    place);
}

function downloadButton(id, kind, label, place) {
  const button = h('button', { type: 'button', class: 'secondary' }, `Download ${label.toLowerCase()}`);
  button.addEventListener('click', async () => {
    button.disabled = true;
    place.replaceChildren();
    try {
      await saveFile(`/bulk-operations/${id}/download?fileContentType=${kind}`, `${kind}.csv`);
    } catch (error) {
      place.replaceChildren(errorBox(error));
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

async function showOperationBody(body, page) {
  const { op } = page;
  page.progress = null;
  // What may only start once the sections are on the page (a poll stops when its place is gone).
  const mounted = [];
  if (BULK_RUNNING.has(op.status)) {
    page.progress = progressBar('bulk-progress', bulkStatus(op));
    body.replaceChildren(h('section', { class: 'panel' }, page.progress.element));
    return;
  }
  const sections = [];
  if (op.status === 'NEW') sections.push(newSection(page));
  if (op.status === 'DATA_MODIFICATION') {
    sections.push(await recordsSection(op, 'UPLOAD', 'Records found', op.matchedNumOfRecords));
    sections.push(await errorsSection(op));
    sections.push(await rulesSection(page));
  }
  if (op.status === 'REVIEW_CHANGES') {
    const errors = await api(`/bulk-operations/${op.id}/errors`, { query: { limit: 1 } });
    // The edit's own errors are those beyond the matching's.
    const refused = Math.max(0, errors.totalRecords - op.matchedNumOfErrors - op.matchedNumOfWarnings);
    const proposed = op.matchedNumOfRecords - refused;
    sections.push(await diffSection(op, 'EDIT', 'Proposed changes', proposed));
    sections.push(await errorsSection(op));
    sections.push(reviewSection(page, proposed));
  }
  if (BULK_ENDED.has(op.status)) {
    if (op.committedNumOfRecords > 0) {
      sections.push(await diffSection(op, 'COMMIT', 'Changed records', op.committedNumOfRecords));
    } else if (op.matchedNumOfRecords === 0) {
      sections.push(h('p', { class: 'warn' }, 'No record was found: nothing to change.'));
    }
    sections.push(await errorsSection(op));
    sections.push(await undoSection(page, mounted));
  }
  fill(body, sections);
  for (const start of mounted) start();
}

function newSection(page) {
  const place = h('section', { class: 'panel' },
    h('p', {}, 'The identifiers are uploaded; the records have not been looked for yet.'));
  const find = h('button', { type: 'button' }, 'Find the records');
  find.addEventListener('click', () => page.act(find, place, () =>
    api(`/bulk-operations/${page.op.id}/start`, { method: 'POST', body: { step: 'UPLOAD' } })));
  place.append(find);
  return place;
}

/**
 * The columns to show, or all of them: the record's identifying column, then the changed
 * ones (so a narrow screen shows them without scrolling), then the other key columns.
 */
function pickColumns(header, entityType, changed, all) {
  if (all) return header.map((_, n) => n);
  const [first, ...keys] = (KEY_COLUMNS[entityType] || []).map((name) => header.indexOf(name)).filter((n) => n >= 0);
  const changes = [...changed].filter((n) => n !== first).sort((a, b) => a - b);
  return [first, ...changes, ...keys.filter((n) => !changed.has(n))].filter((n) => n !== undefined);
}

/** A heading, a "show all columns" switch and a table redrawn by `draw(all)`. */
function previewSection(key, title, draw) {
  const allColumns = h('input', { id: `bulk-${key}-all`, type: 'checkbox' });
  const holder = h('div');
  const section = h('section', { 'aria-labelledby': `bulk-${key}-title` },
    h('h2', { id: `bulk-${key}-title` }, title),
    h('div', { class: 'row jobs-tools' },
      h('span', { class: 'check' }, allColumns, h('label', { for: `bulk-${key}-all` }, 'Show all columns'))),
    holder);
  const redraw = async () => {
    try {
      holder.replaceChildren(await draw(allColumns.checked, redraw));
    } catch (error) {
      holder.replaceChildren(errorBox(error));
    }
  };
  allColumns.addEventListener('change', redraw);
  return { section, redraw };
}

const PREVIEW_PAGE = 10;

/** The records of a step as FOLIO's preview gives them (`{header, rows}`), a page at a time. */
async function recordsSection(op, step, title, total) {
  const page = { offset: 0 };
  const { section, redraw } = previewSection(step.toLowerCase(), `${title} (${total})`, async (all, again) => {
    const table = await api(`/bulk-operations/${op.id}/preview`, { query: { step, limit: PREVIEW_PAGE, offset: page.offset } });
    const header = table.header.map((cell) => cell.value);
    const columns = pickColumns(header, op.entityType, new Set(), all);
    return h('div', {},
      scroller(title, h('table', { class: 'jobs-table jobs-preview' },
        head(columns.map((n) => header[n])),
        h('tbody', {}, table.rows.map(({ row }) => h('tr', {}, columns.map((n) => h('td', {}, row[n]))))))),
      previewPager(title, total, page, again));
  });
  await redraw();
  return section;
}

/**
 * A step's records beside the same records as matched, changed cells marked. A step
 * leaves out records its rules refused, so rows are paired by the record's id column
 * rather than by position; the matched page is read long enough to hold every partner.
 */
async function diffSection(op, step, title, total) {
  const page = { offset: 0 };
  const { section, redraw } = previewSection(step.toLowerCase(), `${title} (${total})`, async (all, again) => {
    const preview = (which, limit) => api(`/bulk-operations/${op.id}/preview`, { query: { step: which, limit, offset: page.offset } });
    const slack = Math.min(Math.max(0, op.matchedNumOfRecords - total), 1000);
    const [after, before] = await Promise.all([preview(step, PREVIEW_PAGE), preview('UPLOAD', PREVIEW_PAGE + slack)]);
    const header = after.header.map((cell) => cell.value);
    const idColumn = Math.max(0, header.findIndex((name) => /UUID$|^User id$/.test(name)));
    const originals = new Map(before.rows.map(({ row }) => [row[idColumn], row]));
    const pairs = after.rows.map(({ row }) => ({ after: row, before: originals.get(row[idColumn]) }));
    const changed = new Set();
    for (const pair of pairs) {
      pair.after.forEach((value, n) => {
        if (pair.before && pair.before[n] !== value) changed.add(n);
      });
    }
    const columns = pickColumns(header, op.entityType, changed, all);
    return h('div', {},
      h('p', { class: 'muted' }, changed.size
        ? `Changed: ${[...changed].map((n) => header[n]).join(', ')}. Each changed cell shows the value before and after.`
        : 'No value changes on this page.'),
      scroller(title, h('table', { class: 'jobs-table jobs-preview jobs-diff' },
        h('thead', {}, h('tr', {}, columns.map((n) =>
          h('th', { scope: 'col', class: changed.has(n) ? 'jobs-changed' : null }, header[n])))),
        h('tbody', {}, pairs.map((pair) => h('tr', {}, columns.map((n) => diffCell(pair.before?.[n], pair.after[n]))))))),
      previewPager(title, total, page, again));
  });
  await redraw();
  return section;
}

/** The pager under a preview table: it moves `page.offset` and draws the table again. */
function previewPager(title, total, page, again) {
  return pager({
    offset: page.offset, limit: PREVIEW_PAGE, total, label: `Pages of ${title.toLowerCase()}`,
    onPage: (next) => {
      page.offset = next;
      return again();
    },
  });
}

function diffCell(before, after) {
  if (before === undefined || before === after) return h('td', {}, after);
  const shown = (value) => value || '(empty)';
  return h('td', { class: 'jobs-changed' },
    h('del', {}, h('span', { class: 'jobs-sr' }, 'before: '), shown(before)),
    h('ins', {}, h('span', { class: 'jobs-sr' }, 'after: '), shown(after)));
}

/** Errors and warnings of the latest step: identifier, type and FOLIO's message. */
async function errorsSection(op, key = 'errors') {
  const title = `bulk-${key}-title`;
  const section = h('section', { 'aria-labelledby': title });
  const draw = async (offset) => {
    const body = await api(`/bulk-operations/${op.id}/errors`, { query: { limit: PREVIEW_PAGE, offset } });
    fill(section,
      h('h2', { id: title }, `Errors and warnings (${body.totalRecords})`),
      body.errors.length
        ? h('table', { class: 'jobs-table jobs-errors', 'aria-labelledby': title },
          head('Identifier', 'Type', 'Message'),
          h('tbody', {}, body.errors.map((error) => h('tr', {},
            h('td', {}, error.parameters?.find((p) => p.key === 'IDENTIFIER')?.value || ''),
            h('td', {}, error.type === 'WARNING' ? 'Warning' : 'Error'),
            h('td', {}, error.message)))))
        : h('p', { class: 'muted' }, 'None.'),
      pager({
        offset, limit: PREVIEW_PAGE, total: body.totalRecords, label: 'Pages of errors',
        onPage: (next) => draw(next).catch((error) => section.append(errorBox(error))),
      }));
  };
  await draw(0);
  return section;
}

/** The reference records a value list offers, by name. */
async function choicesOf(kind) {
  if (kind === 'status') return ITEM_STATUSES.map((s) => [s, s]);
  const records = [...(await reference(kind)).values()];
  const name = (record) => record.name || record.group || record.code || record.id;
  return records.sort((a, b) => name(a).localeCompare(name(b))).map((record) => [record.id, name(record)]);
}

let ruleSerial = 0;

/** One change: the field, its action and the value; `read()` answers FOLIO's rule or throws. */
async function ruleRow(entityType, onRemove, preset) {
  const n = ++ruleSerial;
  const changes = CHANGES[entityType];
  const option = select({ id: `bulk-rule-${n}-option` }, changes.map((c) => [c.option, c.label]), preset?.option);
  const action = h('select', { id: `bulk-rule-${n}-action` });
  const valueHolder = h('div', { class: 'jobs-rule-value' });
  let value = null;
  const legend = h('legend', {}, 'Change');
  const remove = h('button', { type: 'button', class: 'secondary', onclick: onRemove }, 'Remove');
  const row = h('fieldset', { class: 'jobs-rule' },
    legend,
    h('div', { class: 'field' }, h('label', { for: `bulk-rule-${n}-option` }, 'Field'), option),
    h('div', { class: 'field' }, h('label', { for: `bulk-rule-${n}-action` }, 'Action'), action),
    valueHolder, remove);

  const change = () => changes.find((c) => c.option === option.value);
  const fitValue = async (presetAction) => {
    const kind = NO_VALUE.has(action.value) ? null : change().value;
    value = kind ? await valueControl(kind, `bulk-rule-${n}-value`, presetAction) : null;
    valueHolder.replaceChildren(...(value?.elements || []));
  };
  const fitAction = async (presetAction) => {
    action.replaceChildren(...change().actions.map((type) =>
      h('option', { value: type, selected: type === presetAction?.type }, ACTION_LABELS[type] || type)));
    await fitValue(presetAction);
  };
  option.addEventListener('change', () => fitAction().catch((error) => valueHolder.replaceChildren(errorBox(error))));
  action.addEventListener('change', () => fitValue().catch((error) => valueHolder.replaceChildren(errorBox(error))));
  await fitAction(preset?.action);
  return {
    element: row,
    /** Its place in the list, so that "Remove" says which change it removes. */
    number(position) {
      legend.textContent = `Change ${position}`;
      remove.setAttribute('aria-label', `Remove change ${position}`);
    },
    read() {
      const chosen = { type: action.value, ...(value ? value.read() : {}) };
      return { rule_details: { option: option.value, actions: [chosen] } };
    },
  };
}

/** The value part of a change: a list, a date, text, or a find and its replacement. */
async function valueControl(kind, id, preset) {
  const labelled = (text, control) => h('div', { class: 'field' }, h('label', { for: control.id }, text), control);
  if (kind === 'findReplace') {
    const find = h('input', { id: `${id}-find`, required: true, value: preset?.initial });
    const replace = h('input', { id, required: true, value: preset?.updated });
    return {
      elements: [labelled('Find', find), labelled('Replace with', replace)],
      read: () => ({ initial: find.value, updated: replace.value }),
    };
  }
  let control;
  if (kind === 'date') control = h('input', { id, type: 'date', required: true, value: preset?.updated });
  else if (kind === 'text') control = h('input', { id, required: true, value: preset?.updated });
  else control = select({ id, required: true }, await choicesOf(kind), preset?.updated);
  return { elements: [labelled(kind === 'text' ? 'Text' : 'New value', control)], read: () => ({ updated: control.value }) };
}

/** The changes to make, sent as FOLIO's `bulkOperationRules`; then the EDIT step previews them. */
async function rulesSection(page) {
  const { op } = page;
  const rows = [];
  const list = h('div', { class: 'jobs-rules' });
  const status = h('div');
  const add = h('button', { type: 'button', class: 'secondary' }, 'Add a change');
  const preview = h('button', { type: 'submit' }, 'Preview changes');
  const form = h('form', { class: 'panel', 'aria-labelledby': 'bulk-rules-title' },
    h('h2', { id: 'bulk-rules-title' }, 'Changes to make'), list,
    h('div', { class: 'row' }, add, preview), status);
  const renumber = () => rows.forEach((row, n) => row.number(n + 1));
  const addRow = async (preset) => {
    const row = await ruleRow(op.entityType, () => {
      if (rows.length === 1) return;
      rows.splice(rows.indexOf(row), 1);
      row.element.remove();
      renumber();
      add.focus();
    }, preset);
    rows.push(row);
    list.append(row.element);
    renumber();
    return row;
  };
  add.addEventListener('click', async () => {
    const row = await addRow();
    row.element.querySelector('select')?.focus();
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    status.replaceChildren();
    page.act(preview, status, async () => {
      const rules = rows.map((row) => ({ bulkOperationId: op.id, ...row.read() }));
      const sent = await api(`/bulk-operations/${op.id}/content-update`, {
        method: 'POST', body: { bulkOperationRules: rules, totalRecords: rules.length },
      });
      sentRules.set(op.id, sent.bulkOperationRules);
      await api(`/bulk-operations/${op.id}/start`, { method: 'POST', body: { step: 'EDIT' } });
    });
  });
  const earlier = sentRules.get(op.id) || [];
  for (const rule of earlier) await addRow({ option: rule.rule_details.option, action: rule.rule_details.actions[0] });
  if (!rows.length) await addRow();
  return form;
}

/** Commit, go back to the rules, or drop the operation. */
function reviewSection(page, proposed) {
  const { op } = page;
  const status = h('div');
  const commit = h('button', { type: 'button' }, `Commit changes to ${counted(proposed, op.entityType)}`);
  const again = h('button', { type: 'button', class: 'secondary' }, 'Change the rules');
  const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel this edit');
  const section = h('section', { class: 'panel', 'aria-labelledby': 'bulk-review-title' },
    h('h2', { id: 'bulk-review-title' }, 'Commit'),
    h('p', {}, 'Nothing is changed until you commit; an undo stays possible afterwards.'),
    h('div', { class: 'row' }, commit, again, cancel), status);
  commit.addEventListener('click', () => page.act(commit, status, () =>
    api(`/bulk-operations/${op.id}/start`, { method: 'POST', body: { step: 'COMMIT' } })));
  cancel.addEventListener('click', () => page.act(cancel, status, () =>
    api(`/bulk-operations/${op.id}/cancel`, { method: 'POST' })));
  again.addEventListener('click', async () => {
    again.disabled = true;
    try {
      const rules = await rulesSection(page);
      section.replaceWith(rules);
      rules.querySelector('select')?.focus();
    } catch (error) {
      status.append(errorBox(error));
      again.disabled = false;
    }
  });
  return section;
}

/** Quire's undo: a rollback operation restores each committed record; its result is shown here. */
async function undoSection(page, mounted) {
  const { op } = page;
  const section = h('section', { class: 'panel', 'aria-labelledby': 'bulk-undo-title' },
    h('h2', { id: 'bulk-undo-title' }, 'Undo'));
  if (op.rollbackOf) {
    const original = await api(`/bulk-operations/${op.rollbackOf}`).catch(() => null);
    const name = original ? `bulk edit #${original.hrId}` : 'an earlier bulk edit';
    section.append(h('p', {}, 'This edit undid ', h('a', { href: `#/bulk/${op.rollbackOf}` }, name), '.'));
    return section;
  }
  const result = h('div');
  section.append(result);
  if (op.rolledBackBy) {
    mounted.push(() => watchRollback(result, op.rolledBackBy).catch((error) => result.replaceChildren(errorBox(error))));
    return section;
  }
  if (!op.committedNumOfRecords) {
    result.append(h('p', { class: 'muted' }, 'Nothing was committed, so there is nothing to undo.'));
    return section;
  }
  const undo = h('button', { type: 'button', class: 'secondary' },
    `Undo: restore the ${counted(op.committedNumOfRecords, op.entityType)} changed`);
  undo.addEventListener('click', async () => {
    undo.disabled = true;
    try {
      const rollback = await api(`/bulk-operations/${op.id}/rollback`, { method: 'POST' });
      undo.remove();
      await watchRollback(result, rollback.id);
    } catch (error) {
      result.append(errorBox(error));
      undo.disabled = false;
    }
  });
  result.append(h('p', {}, 'Puts back each record as it was matched, unless it has changed since.'), undo);
  return section;
}

async function watchRollback(place, id) {
  const bar = progressBar('bulk-undo-progress', 'Restoring the records');
  const say = announcer({ shown: false });
  place.replaceChildren(bar.element, say.element);
  let rollback;
  while (place.isConnected) {
    rollback = await api(`/bulk-operations/${id}`);
    const { current, total } = operationProgress(rollback);
    bar.update(current, total);
    if (BULK_ENDED.has(rollback.status)) break;
    say.tick(`Undo: ${current} of ${total}`);
    await sleep(POLL_MS);
  }
  if (!place.isConnected) return;
  const failed = rollback.committedNumOfErrors;
  const words = `Undo ${bulkStatus(rollback).toLowerCase()}: ${rollback.committedNumOfRecords} restored`
    + `${failed ? `, ${failed} not restored` : ''}.`;
  const link = h('a', { href: `#/bulk/${id}` }, `bulk edit #${rollback.hrId}`);
  place.replaceChildren(
    h('p', { class: failed || rollback.status === 'FAILED' ? 'warn' : 'ok' }, words, ' The undo is ', link, '.'),
    say.element);
  say.say(words);
  if (failed) place.append(await errorsSection(rollback, 'undo-errors'));
}
