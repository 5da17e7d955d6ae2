// Data import: a MARC file handed to mod-data-import's API (mod-data-import,
// mod-source-record-manager, mod-di-converter-storage), its job watched while it runs,
// then its summary and per-record log.
import { api, errorBox, formatDate, go, h, view } from './core.js';
import {
  announcer, fileChooser, fill, formatSize, head, pager, POLL_MS, progressBar, scroller, sleep,
} from './jobs.js';

/** FOLIO's default profile for MARC bibliographic files. */
const DEFAULT_PROFILE = 'e34d7b92-9b83-11eb-a8b3-0242ac130003';
const ENDED_JOB = new Set(['COMMITTED', 'ERROR', 'CANCELLED', 'DISCARDED']);

/** A job's status in words, as FOLIO's data-import log puts it. */
function jobStatus(job) {
  switch (job.status) {
    case 'COMMITTED': return 'Completed';
    case 'ERROR': return job.progress?.current > 0 ? 'Completed with errors' : 'Failed';
    case 'CANCELLED': return 'Stopped by user';
    case 'DISCARDED': return 'Discarded';
    case 'NEW':
    case 'FILE_UPLOADED': return 'Waiting to start';
    default: return 'Running';
  }
}

view('import', 'Import', async (container, { args }) => {
  if (args[0]) await showImportJob(container, args[0]);
  else await showImportStart(container);
});

async function showImportStart(container) {
  const chooser = fileChooser({
    id: 'import-file',
    label: 'MARC file',
    accept: '.mrc,.marc,.dat,.xml,.json,.txt',
    hint: 'Choose a file, or drop it here.',
  });
  const profiles = h('select', { id: 'import-profile', required: true }, h('option', { value: '' }, 'Loading profiles…'));
  const status = h('div', { class: 'jobs-status' });
  const start = h('button', { type: 'submit' }, 'Start import');
  const form = h('form', { class: 'panel jobs-form', 'aria-labelledby': 'import-title' },
    h('h1', { id: 'import-title' }, 'Import MARC records'),
    chooser.element,
    h('div', { class: 'field' }, h('label', { for: 'import-profile' }, 'Job profile'), profiles),
    h('div', { class: 'row' }, start),
    status);
  const recent = h('section', { class: 'jobs-recent', 'aria-labelledby': 'import-recent-title' },
    h('h2', { id: 'import-recent-title' }, 'Recent imports'));
  container.append(h('div', { class: 'jobs-layout' }, form, recent));

  const loaded = loadProfiles(profiles).catch((error) => {
    status.replaceChildren(errorBox(error));
    return new Map();
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const file = chooser.input.files[0];
    const profile = (await loaded).get(profiles.value);
    if (!file) return status.replaceChildren(errorBox('Choose a MARC file first.'));
    if (file.size === 0) return status.replaceChildren(errorBox(`${file.name} is empty.`));
    if (!profile) return status.replaceChildren(errorBox('Choose a job profile.'));
    start.disabled = true;
    const bar = progressBar('import-upload', `Uploading ${file.name} (${formatSize(file.size)})`);
    const say = announcer();
    status.replaceChildren(bar.element, say.element);
    try {
      const jobId = await startImport(file, profile, (words) => say.say(words));
      go('import', jobId);
    } catch (error) {
      status.replaceChildren(errorBox(`The import did not start: ${error.message}`));
      start.disabled = false;
    }
  });
  await listImports(recent);
}

/** Fills the profile list, FOLIO's default create-instance profile chosen; answers id → profile. */
async function loadProfiles(selectElement) {
  const body = await api('/data-import-profiles/jobProfiles', { query: { limit: 500, query: 'cql.allRecords=1' } });
  const found = (body.jobProfiles || []).sort((a, b) => a.name.localeCompare(b.name));
  const preferred = found.some((p) => p.id === DEFAULT_PROFILE) ? DEFAULT_PROFILE : found[0]?.id;
  selectElement.replaceChildren(...found.map((p) =>
    h('option', { value: p.id, selected: p.id === preferred }, `${p.name} (${p.dataType})`)));
  return new Map(found.map((p) => [p.id, p]));
}

/** mod-data-import's three calls: a definition (which makes the job), the bytes, the start. */
async function startImport(file, profile, step) {
  step('Preparing the upload…');
  const definition = await api('/data-import/uploadDefinitions', {
    method: 'POST',
    body: { fileDefinitions: [{ name: file.name }] },
  });
  const fileDefinition = definition.fileDefinitions[0];
  try {
    step(`Uploading ${file.name}…`);
    const uploaded = await api(`/data-import/uploadDefinitions/${definition.id}/files/${fileDefinition.id}`, {
      method: 'POST',
      body: file,
      headers: { 'Content-Type': 'application/octet-stream' },
    });
    step('Starting the job…');
    await api(`/data-import/uploadDefinitions/${definition.id}/processFiles`, {
      method: 'POST',
      body: {
        uploadDefinition: uploaded,
        jobProfileInfo: { id: profile.id, name: profile.name, dataType: profile.dataType },
      },
    });
  } catch (error) {
    // Otherwise a job that never starts would linger in the list.
    api(`/data-import/uploadDefinitions/${definition.id}`, { method: 'DELETE' }).catch(() => {});
    throw error;
  }
  return fileDefinition.jobExecutionId;
}

/** The latest file jobs, newest first; refreshed while one of them runs. */
async function listImports(section) {
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  section.append(body);
  while (section.isConnected) {
    const { jobExecutions: jobs = [] } = await api('/metadata-provider/jobExecutions', {
      query: { sortBy: 'hrid,desc', limit: 15, fileNameNotAny: 'No file name', statusNot: 'NEW' },
    });
    body.replaceChildren(jobs.length ? importTable(jobs) : h('p', { class: 'muted' }, 'No imports yet.'));
    if (!jobs.some((job) => !ENDED_JOB.has(job.status))) return;
    await sleep(POLL_MS * 3);
  }
}

function importTable(jobs) {
  return scroller('Recent imports', h('table', { class: 'jobs-table' },
    head('Job', 'File', 'Status', 'Records', 'Profile', 'Started', 'Ended', 'Run by'),
    h('tbody', {}, jobs.map((job) => h('tr', {},
      h('td', {}, h('a', { href: `#/import/${job.id}` }, `#${job.hrId}`)),
      h('td', {}, job.fileName || ''),
      h('td', {}, h('span', { class: `jobs-badge jobs-${job.status.toLowerCase()}` }, jobStatus(job))),
      h('td', {}, job.progress ? `${job.progress.current} of ${job.progress.total}` : ''),
      h('td', {}, job.jobProfileInfo?.name || ''),
      h('td', {}, formatDate(job.startedDate, true)),
      h('td', {}, formatDate(job.completedDate, true)),
      h('td', {}, [job.runBy?.firstName, job.runBy?.lastName].filter(Boolean).join(' ')))))));
}

/** One job: its progress while it runs, then its summary and its log of records. */
async function showImportJob(container, id) {
  const heading = h('h1', { tabindex: '-1' }, 'Import job');
  const facts = h('dl', { class: 'facts' });
  const bar = progressBar('import-progress', 'Records processed');
  const say = announcer();
  const actions = h('div', { class: 'row' });
  const summary = h('section', { 'aria-labelledby': 'import-summary-title' });
  const log = h('section', { 'aria-labelledby': 'import-log-title' });
  container.append(
    h('p', {}, h('a', { href: '#/import' }, 'New import and recent jobs')),
    heading, h('div', { class: 'panel' }, facts, bar.element, say.element, actions), summary, log);
  heading.focus();

  let job;
  let shownStatus;
  while (container.isConnected) {
    job = await api(`/change-manager/jobExecutions/${id}`);
    heading.textContent = `Import job #${job.hrId}: ${job.fileName || 'no file name'}`;
    showJobFacts(facts, job);
    const { current = 0, total = 0 } = job.progress || {};
    bar.update(current, total);
    const words = `${jobStatus(job)}: ${current} of ${total} records`;
    if (job.status !== shownStatus) {
      shownStatus = job.status;
      say.say(words);
      showStopButton(actions, job);
    } else {
      say.tick(words);
    }
    if (ENDED_JOB.has(job.status)) break;
    await sleep(POLL_MS);
  }
  if (!container.isConnected) return;
  actions.replaceChildren();
  const totals = await showSummary(summary, id);
  say.say(`${jobStatus(job)}: ${totals}`);
  await showLog(log, id, 0, false);
}

function showJobFacts(facts, job) {
  const fact = (term, value) => (value ? [h('dt', {}, term), h('dd', {}, value)] : null);
  fill(facts, [
    fact('Status', h('span', { class: `jobs-badge jobs-${job.status.toLowerCase()}` }, jobStatus(job))),
    fact('Profile', job.jobProfileInfo?.name),
    fact('Run by', [job.runBy?.firstName, job.runBy?.lastName].filter(Boolean).join(' ')),
    fact('Started', formatDate(job.startedDate, true)),
    fact('Ended', formatDate(job.completedDate, true)),
    fact('Problem', job.errorStatus),
  ]);
}

/** A running job can be stopped at its next chunk, as FOLIO's "Stop" does. */
function showStopButton(actions, job) {
  if (ENDED_JOB.has(job.status)) return actions.replaceChildren();
  const stop = h('button', { type: 'button', class: 'secondary' }, 'Stop import');
  stop.addEventListener('click', async () => {
    stop.disabled = true;
    try {
      await api(`/change-manager/jobExecutions/${job.id}/records`, { method: 'DELETE' });
    } catch (error) {
      actions.append(errorBox(error));
      stop.disabled = false;
    }
  });
  actions.replaceChildren(stop);
}

/** The record types of a job summary, as FOLIO's log names them. */
const SUMMARY_ROWS = [
  ['sourceRecordSummary', 'SRS MARC'],
  ['instanceSummary', 'Instances'],
  ['holdingSummary', 'Holdings'],
  ['itemSummary', 'Items'],
  ['authoritySummary', 'Authorities'],
  ['orderSummary', 'Orders'],
  ['invoiceSummary', 'Invoices'],
];
const SUMMARY_COLUMNS = [
  ['totalCreatedEntities', 'Created'],
  ['totalUpdatedEntities', 'Updated'],
  ['totalDeletedEntities', 'Deleted'],
  ['totalDiscardedEntities', 'Discarded'],
  ['totalErrors', 'Errors'],
];

/** Created, updated, discarded and failed counts per record type; answers them in words. */
async function showSummary(section, id) {
  const summary = await api(`/metadata-provider/jobSummary/${id}`);
  const busy = (counts) => counts && SUMMARY_COLUMNS.some(([key]) => counts[key] > 0);
  const rows = SUMMARY_ROWS.filter(([key], n) => n === 0 || busy(summary[key]));
  // FOLIO's log has no deletions column; one shows only when something was deleted.
  const columns = SUMMARY_COLUMNS.filter(([key]) =>
    key !== 'totalDeletedEntities' || rows.some(([row]) => summary[row]?.[key] > 0));
  section.replaceChildren(
    h('h2', { id: 'import-summary-title' }, 'Summary'),
    h('table', { class: 'jobs-table jobs-summary', 'aria-labelledby': 'import-summary-title' },
      head('Record type', columns.map(([, label]) => label)),
      h('tbody', {}, rows.map(([key, label]) => h('tr', {},
        h('th', { scope: 'row' }, label),
        columns.map(([column]) => {
          const n = summary[key]?.[column] ?? 0;
          return h('td', { class: column === 'totalErrors' && n > 0 ? 'jobs-bad' : null }, String(n));
        }))))));
  const words = rows
    .filter(([key]) => busy(summary[key]))
    .map(([key, label]) => {
      const counts = summary[key];
      const parts = columns.filter(([c]) => counts[c] > 0).map(([c, l]) => `${counts[c]} ${l.toLowerCase()}`);
      return `${label}: ${parts.join(', ')}`;
    });
  return words.join('; ') || 'nothing imported';
}

const LOG_PAGE = 25;
const ACTION_WORDS = {
  CREATED: 'Created', UPDATED: 'Updated', DELETED: 'Deleted', DISCARDED: 'Discarded', MULTIPLE: 'Multiple',
};

/** What a log entry says happened to each kind of record: the action, errors and links. */
function entryActions(entry) {
  const one = (info) => (info ? [info] : []);
  const instances = one(entry.relatedInstanceInfo);
  const authorities = one(entry.relatedAuthorityInfo);
  return {
    marc: [{ actionStatus: entry.sourceRecordActionStatus, error: entry.error }],
    instance: instances.map((info) => ({
      ...info,
      links: (info.idList || []).map((id, n) => [id, info.hridList?.[n] || id]),
    })),
    holdings: entry.relatedHoldingsInfo || [],
    item: entry.relatedItemInfo || [],
    authority: authorities,
  };
}

function actionCell(infos, linkTo) {
  if (!infos.length || infos.every((info) => !info.actionStatus && !info.error)) {
    return h('td', { class: 'muted' }, 'No action');
  }
  return h('td', {}, infos.map((info) => {
    const word = info.error ? 'Error' : ACTION_WORDS[info.actionStatus] || info.actionStatus;
    const links = linkTo ? (info.links || []).map(([id, text]) => [' ', h('a', { href: linkTo(id) }, text)]) : [];
    return h('div', {}, h('span', { class: `jobs-action jobs-action-${word.toLowerCase()}` }, word), links);
  }));
}

/** The kinds of record a log shows a column for, and where a record of the kind opens. */
const LOG_KINDS = [
  ['marc', 'SRS MARC', null],
  ['instance', 'Instance', (instanceId) => `#/record/${instanceId}`],
  ['holdings', 'Holdings', null],
  ['item', 'Item', null],
  ['authority', 'Authority', null],
];

/** The log of a job, a page at a time, optionally only the records that failed. */
async function showLog(section, id, offset, errorsOnly) {
  const body = await api(`/metadata-provider/jobLogEntries/${id}`, {
    query: { limit: LOG_PAGE, offset, errorsOnly: errorsOnly || undefined },
  });
  const again = (next, only) => showLog(section, id, next, only).catch((error) => section.append(errorBox(error)));
  const only = h('input', { id: 'import-errors-only', type: 'checkbox', checked: errorsOnly });
  only.addEventListener('change', () => again(0, only.checked).then(() => section.querySelector('input')?.focus()));
  const entries = body.entries || [];
  fill(section,
    h('h2', { id: 'import-log-title' }, `Records (${body.totalRecords})`),
    h('div', { class: 'row jobs-tools' },
      h('span', { class: 'check' }, only, h('label', { for: 'import-errors-only' }, 'Only records with errors'))),
    entries.length
      ? scroller('Records of the job', logTable(entries))
      : h('p', { class: 'muted' }, errorsOnly ? 'No record failed.' : 'The job has no records.'),
    pager({
      offset, limit: LOG_PAGE, total: body.totalRecords, label: 'Pages of records',
      onPage: (next) => again(next, errorsOnly),
    }));
}

function logTable(entries) {
  const rows = entries.map((entry) => ({ entry, actions: entryActions(entry) }));
  // Only the record types this page touches get a column; MARC and instances always do.
  const kinds = LOG_KINDS.filter(([kind], n) => n < 2 || rows.some((row) => row.actions[kind].length));
  const errorsOf = ({ entry, actions }) => [
    entry.error,
    ...Object.values(actions).flat().map((info) => info.error),
  ].filter(Boolean).filter((message, n, all) => all.indexOf(message) === n);
  return h('table', { class: 'jobs-table jobs-log', 'aria-labelledby': 'import-log-title' },
    head('#', 'Title', kinds.map(([, label]) => label), 'Error'),
    h('tbody', {}, rows.map((row) => h('tr', { class: errorsOf(row).length ? 'jobs-row-bad' : null },
      h('td', {}, String(Number(row.entry.sourceRecordOrder) + 1)),
      h('td', {}, row.entry.sourceRecordTitle || h('span', { class: 'muted' }, 'No title')),
      kinds.map(([kind, , linkTo]) => actionCell(row.actions[kind], linkTo)),
      h('td', { class: 'jobs-error' }, errorsOf(row).join('; '))))));
}
