// The tenant's housekeeping: the node's health, the search index (its state and a full
// rebuild, which serves the old index until the new one is ready), and the OAI-PMH
// settings a harvester sees.
import { api, errorBox, formatDate, h, session, view } from './core.js';

view('admin', 'Admin', async (container) => {
  const health = h('section', { 'aria-labelledby': 'admin-health' });
  const index = h('section', { 'aria-labelledby': 'admin-index' });
  const oai = h('section', { 'aria-labelledby': 'admin-oai' });
  container.append(h('h1', {}, 'Admin'), h('div', { class: 'admin-grid' }, health, index), oai);
  await Promise.all([showHealth(health), showIndex(index), showOai(oai)]);
});

async function showHealth(section) {
  section.replaceChildren(h('h2', { id: 'admin-health' }, 'Health'));
  try {
    const health = await api('/admin/health');
    const events = health.events || {};
    section.append(factList([
      ['Status', health.status],
      ['Node', health.node],
      ['Store', `${health.store?.backend}, ${health.store?.reachable ? 'reachable' : 'NOT reachable'}`],
      ['Event publishing', events.enabled ? 'on' : 'off'],
    ]));
    // Every tenant this node serves: how far its indexes follow its change log.
    const rows = Object.entries(health.replicas || {}).map(([tenant, replica]) => h('tr', {},
      h('th', { scope: 'row' }, tenant === session.tenant ? `${tenant} (this one)` : tenant),
      h('td', {}, String(replica.head)),
      h('td', {}, `${replica.indexes?.lag ?? '?'}`),
      h('td', {}, replica.jobs?.length ? replica.jobs.join(', ') : 'none')));
    section.append(h('table', { class: 'tenants' },
      h('caption', {}, `Tenants: ${health.tenants}`),
      h('thead', {}, h('tr', {}, ['Tenant', 'Change log head', 'Index lag (changes)', 'Jobs held here'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, rows)));
  } catch (error) {
    section.append(errorBox(error));
  }
}

const REINDEX = '/search/index/instance-records/reindex';

async function showIndex(section) {
  section.replaceChildren(h('h2', { id: 'admin-index' }, 'Search index'));
  const body = h('div', { 'aria-live': 'polite' });
  const rebuild = h('button', { type: 'button' }, 'Rebuild the index');
  const refresh = h('button', { type: 'button', class: 'secondary' }, 'Refresh');
  section.append(body, h('div', { class: 'row' }, rebuild, refresh));
  const load = async () => {
    const [status] = await api(`${REINDEX}/status`);
    body.replaceChildren(indexFacts(status));
    return status;
  };
  refresh.addEventListener('click', () => load().catch((error) => body.replaceChildren(errorBox(error))));
  rebuild.addEventListener('click', async () => {
    rebuild.disabled = true;
    try {
      const before = await load();
      await api(`${REINDEX}/full`, { method: 'POST', body: {} });
      body.prepend(h('p', { class: 'muted' }, 'Rebuilding: searches use the current index until the new one is ready.'));
      // The rebuild runs in the background; its generation changes when it is swapped in.
      for (let i = 0; i < 600 && section.isConnected; i++) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        const now = await load();
        if (now.generation !== before.generation && !now.compacting) {
          body.prepend(h('p', { class: 'ok' }, `Rebuilt: ${now.documents} instances indexed.`));
          break;
        }
        if (now.lastError) break;
      }
    } catch (error) {
      body.append(errorBox(error));
    } finally {
      rebuild.disabled = false;
    }
  });
  await load().catch((error) => body.replaceChildren(errorBox(error)));
}

function indexFacts(status) {
  const last = status.lastReindex;
  return factList([
    ['Instances indexed', status.documents],
    ['Generation', status.generation],
    ['Segments', status.segments],
    ['Deleted documents', status.deletedDocuments],
    ['Applied / change log', `${status.appliedSequence} / ${status.changeLogSequence}`],
    ['Compacting', status.compacting ? 'yes' : 'no'],
    ['Last rebuild', last ? `${last.instances} instances in ${last.seconds.toFixed(1)} s` : 'none since start'],
    ['Last error', status.lastError || 'none'],
  ]);
}

// The OAI-PMH settings, by FOLIO's three groups. A key the page does not know is kept
// as it is when the group is saved.
const OAI_FIELDS = {
  general: [
    ['enableOaiService', 'OAI-PMH service enabled', 'boolean'],
    ['repositoryName', 'Repository name', 'text'],
    ['baseUrl', 'Base URL', 'url'],
    ['administratorEmail', 'Administrator email', 'email'],
  ],
  technical: [
    ['maxRecordsPerResponse', 'Records per response (1-500)', 'number'],
    ['enableValidation', 'Validate responses', 'boolean'],
    ['formattedOutput', 'Formatted output', 'boolean'],
  ],
  behavior: [
    ['deletedRecordsSupport', 'Deleted records', ['no', 'transient', 'persistent']],
    ['suppressedRecordsProcessing', 'Include records suppressed from discovery', 'boolean'],
    ['errorsProcessing', 'HTTP status of OAI-PMH errors', ['200', '500']],
  ],
};

async function showOai(section) {
  section.replaceChildren(h('h2', { id: 'admin-oai' }, 'OAI-PMH settings'));
  try {
    const { configurationSettings } = await api('/oai-pmh/configuration-settings');
    const forms = configurationSettings
      .filter((setting) => OAI_FIELDS[setting.configName])
      .map(oaiForm);
    section.append(h('div', { class: 'admin-grid' }, forms));
  } catch (error) {
    section.append(errorBox(error));
  }
}

function oaiForm(setting) {
  const name = setting.configName;
  const status = h('div', { 'aria-live': 'polite' });
  const inputs = new Map();
  const fields = OAI_FIELDS[name].map(([key, label, kind]) => {
    const id = `oai-${name}-${key}`;
    const value = setting.configValue?.[key] ?? '';
    let input;
    if (kind === 'boolean') {
      input = h('input', { id, type: 'checkbox', checked: value === 'true' || value === true });
    } else if (Array.isArray(kind)) {
      input = h('select', { id }, kind.map((option) => h('option', { value: option, selected: option === value }, option)));
    } else {
      // No min or max: the server's own message says what is allowed.
      input = h('input', { id, type: kind, value });
    }
    inputs.set(key, input);
    return kind === 'boolean'
      ? h('div', { class: 'check' }, input, h('label', { for: id }, label))
      : h('div', { class: 'field' }, h('label', { for: id }, label), input);
  });
  const form = h('form', { class: 'panel', 'aria-label': `OAI-PMH ${name} settings` },
    h('h3', {}, name[0].toUpperCase() + name.slice(1)), fields,
    h('button', { type: 'submit' }, `Save ${name}`), status);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const configValue = { ...setting.configValue };
    for (const [key, input] of inputs) {
      configValue[key] = input.type === 'checkbox' ? String(input.checked) : input.value;
    }
    try {
      await api(`/oai-pmh/configuration-settings/${setting.id}`, {
        method: 'PUT',
        body: { ...setting, configValue },
      });
      setting.configValue = configValue;
      status.replaceChildren(h('p', { class: 'ok' }, `Saved at ${formatDate(new Date().toISOString(), true)}.`));
    } catch (error) {
      status.replaceChildren(errorBox(error));
    }
  });
  return form;
}

function factList(facts) {
  return h('dl', { class: 'facts' }, facts.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, String(value ?? ''))]));
}
