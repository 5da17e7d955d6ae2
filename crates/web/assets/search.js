// Search and the record view. The search speaks mod-search's CQL as FOLIO's inventory
// app does (its search options, facets and sorts); the record view shows one instance
// with its holdings, items and loans, its MARC record and its history from the change
// log. Every request goes through the FOLIO API.
import { ApiError, api, cqlString, errorBox, formatDate, h, reference, view } from './core.js';

// ---------------------------------------------------------------------------------------
// The search's vocabulary: options, facets, sorts.

/**
 * FOLIO inventory's search options: what the box searches and the CQL each makes of the
 * words typed (`s` is the words as a CQL string). `null` is the raw query.
 */
const OPTIONS = [
  ['keyword', 'Keyword (title, contributor, identifier, HRID)',
    (s) => `keyword all ${s} or identifiers.value == ${s} or hrid == ${s}`],
  ['title', 'Title', (s) => `title all ${s}`],
  ['contributor', 'Contributor', (s) => `contributors.name all ${s}`],
  ['subject', 'Subject', (s) => `subjects.value all ${s}`],
  ['identifier', 'Identifier (all)', (s) => `identifiers.value == ${s}`],
  ['isbn', 'ISBN', (s) => `isbn == ${s}`],
  ['issn', 'ISSN', (s) => `issn == ${s}`],
  ['barcode', 'Item barcode', (s) => `items.barcode == ${s}`],
  ['hrid', 'Instance HRID', (s) => `hrid == ${s}`],
  ['query', 'Query search (CQL)', null],
];
const OPTION = new Map(OPTIONS.map(([name, label, cql]) => [name, { label, cql }]));

/** The orders mod-search sorts by; relevance is its default, with no `sortBy`. */
const SORTS = [
  ['relevance', 'Relevance', ''],
  ['title', 'Title', ' sortBy title'],
  ['contributors', 'Contributors', ' sortBy contributors'],
];
const SORT = new Map(SORTS.map(([name, label, cql]) => [name, { label, cql }]));
const PAGE_SIZES = [20, 50];
/**
 * How long typing must pause before the box searches. Short: Quire answers a search and
 * its facets in a few milliseconds, so the pause need only skip the keys of a burst, and
 * an answer overtaken by a later one is dropped (measured in docs/benchmarks.md).
 */
const TYPING_PAUSE_MS = 20;
/** mod-search answers no further than this many records into a result. */
const MAX_WINDOW = 10_000;

/** MARC's bibliographic language codes that differ from ISO 639-2/T, which Intl names. */
const TERMINOLOGIC = {
  alb: 'sqi', arm: 'hye', baq: 'eus', bur: 'mya', chi: 'zho', cze: 'ces', dut: 'nld',
  fre: 'fra', geo: 'kat', ger: 'deu', gre: 'ell', ice: 'isl', mac: 'mkd', mao: 'mri',
  may: 'msa', per: 'fas', rum: 'ron', slo: 'slk', tib: 'bod', wel: 'cym',
};
let languageNames;
/** `ger` as "German": the browser's own names, the code where it has none. */
function languageName(code) {
  try {
    languageNames ??= new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });
    const name = languageNames.of(TERMINOLOGIC[code] || code);
    return name && name !== (TERMINOLOGIC[code] || code) ? name : code;
  } catch {
    return code;
  }
}

const yesNo = (value) => (value === 'true' ? 'Yes' : value === 'false' ? 'No' : value);

/**
 * The facets beside the results: mod-search's field, its heading, how many values to
 * ask for, and how a value is named (a reference table, or a function).
 */
const FACETS = [
  { field: 'items.status.name', label: 'Item status', size: 10 },
  { field: 'items.effectiveLocationId', label: 'Effective location', size: 10, table: 'locations' },
  { field: 'languages', label: 'Language', size: 10, name: languageName },
  { field: 'instanceFormatIds', label: 'Format', size: 10, table: 'instanceFormats' },
  { field: 'source', label: 'Source' },
  { field: 'staffSuppress', label: 'Staff suppressed', name: yesNo },
  { field: 'discoverySuppress', label: 'Suppressed from discovery', name: yesNo },
];
const FACET = new Map(FACETS.map((facet) => [facet.field, facet]));

/** The reference tables the search names ids from, each a Map (empty if refused). */
async function references(kinds) {
  const loaded = await Promise.allSettled(kinds.map((kind) => reference(kind)));
  return Object.fromEntries(kinds.map((kind, i) =>
    [kind, loaded[i].status === 'fulfilled' ? loaded[i].value : new Map()]));
}
const named = (table, id) => table?.get(id)?.name || id;

// ---------------------------------------------------------------------------------------
// The search's state, kept in the address so that back, forward and reload restore it:
// `#/search?q=&option=&f=field:value&sort=&limit=&offset=`.

function readState(params) {
  const filters = new Map();
  for (const pair of params.getAll('f')) {
    const at = pair.indexOf(':');
    const field = pair.slice(0, at);
    if (at < 0 || !FACET.has(field)) continue;
    if (!filters.has(field)) filters.set(field, []);
    filters.get(field).push(pair.slice(at + 1));
  }
  const limit = Number(params.get('limit'));
  return {
    q: params.get('q') || '',
    option: OPTION.has(params.get('option')) ? params.get('option') : 'keyword',
    filters,
    sort: SORT.has(params.get('sort')) ? params.get('sort') : 'relevance',
    limit: PAGE_SIZES.includes(limit) ? limit : PAGE_SIZES[0],
    offset: Math.max(0, Math.floor(Number(params.get('offset')) || 0)),
  };
}

function stateHash(state) {
  const params = new URLSearchParams();
  if (state.q) params.set('q', state.q);
  if (state.option !== 'keyword') params.set('option', state.option);
  for (const [field, values] of state.filters) {
    for (const value of values) params.append('f', `${field}:${value}`);
  }
  if (state.sort !== 'relevance') params.set('sort', state.sort);
  if (state.limit !== PAGE_SIZES[0]) params.set('limit', state.limit);
  if (state.offset) params.set('offset', state.offset);
  const query = params.toString();
  return query ? `#/search?${query}` : '#/search';
}

const LAST_SEARCH = 'quire.lastSearch';

/**
 * Puts the state in the address without the router redrawing the view (which would take
 * the focus from the box): a new history entry for a step the user would go back to,
 * the same entry while they type.
 */
function commit(state, newEntry) {
  const hash = stateHash(state);
  sessionStorage.setItem(LAST_SEARCH, hash);
  if (location.hash === hash) return;
  if (newEntry) history.pushState(null, '', hash);
  else history.replaceState(null, '', hash);
}

/**
 * The CQL of a state: the option's clause (or the raw query) and each facet's values
 * ORed, ANDed together; `null` when there is nothing to search for. mod-search lifts the
 * facet clauses out again to count each facet without its own filter.
 */
function searchQuery(state) {
  const words = state.q.trim();
  let base = '';
  let sort = SORT.get(state.sort).cql;
  if (words && state.option === 'query') {
    // Half a quoted string or a parenthesis left open would take in the clauses added
    // after it (and could still parse): such a query goes alone, for the server to judge.
    if (!balanced(words)) return { cql: words, sort: '' };
    // A typed sortBy wins over the sort menu, and must stay at the end.
    const sortBy = words.search(/\ssortby\s/i);
    base = sortBy < 0 ? words : words.slice(0, sortBy).trim();
    if (sortBy >= 0) sort = ` ${words.slice(sortBy).trim()}`;
  } else if (words) {
    base = OPTION.get(state.option).cql(cqlString(words));
  }
  const filters = [...state.filters].filter(([, values]) => values.length)
    .map(([field, values]) => `${field}==(${values.map(cqlString).join(' or ')})`);
  if (!base && !filters.length) return null;
  const clauses = [base ? `(${base})` : 'cql.allRecords=1', ...filters];
  return { cql: clauses.join(' and '), sort };
}

/** Whether every quoted string of a CQL query is closed, and every parenthesis. */
function balanced(cql) {
  let quoted = false;
  let depth = 0;
  for (let i = 0; i < cql.length; i++) {
    const c = cql[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') {
      quoted = true;
    } else if (c === '(') {
      depth++;
    } else if (c === ')' && --depth < 0) {
      return false;
    }
  }
  return !quoted && depth === 0;
}

// ---------------------------------------------------------------------------------------
// The search view.

view('search', 'Search', (container, { params }) => {
  const state = readState(params);
  sessionStorage.setItem(LAST_SEARCH, stateHash(state));
  const ui = searchForm(state);
  container.append(ui.root);
  ui.input.focus();
  ui.refs = references(['locations', 'instanceFormats', 'instanceTypes']);
  run(ui, state);
});

let searchIds = 0;
/** The search box, its menus, the facets panel and the results, wired to `state`. */
function searchForm(state) {
  const n = ++searchIds;
  const id = (name) => `search-${name}-${n}`;
  const input = h('input', {
    id: id('q'), type: 'search', value: state.q, autocomplete: 'off', spellcheck: 'false',
    'aria-describedby': id('hint'),
  });
  const option = h('select', { id: id('option') },
    OPTIONS.map(([name, label]) => h('option', { value: name, selected: name === state.option }, label)));
  const sort = h('select', { id: id('sort') },
    SORTS.map(([name, label]) => h('option', { value: name, selected: name === state.sort }, label)));
  const limit = h('select', { id: id('limit') },
    PAGE_SIZES.map((size) => h('option', { value: size, selected: size === state.limit }, String(size))));
  const hint = h('p', { id: id('hint'), class: 'muted search-hint' });
  const form = h('form', { class: 'search-form', role: 'search', 'aria-label': 'Catalogue' },
    h('div', { class: 'field search-option' }, h('label', { for: id('option') }, 'Search in'), option),
    h('div', { class: 'field search-words' }, h('label', { for: id('q') }, 'Search for'), input),
    h('button', { type: 'submit' }, 'Search'),
    h('div', { class: 'field' }, h('label', { for: id('sort') }, 'Sort by'), sort),
    h('div', { class: 'field' }, h('label', { for: id('limit') }, 'Per page'), limit));
  const ui = {
    root: null, input, option, hint, generation: 0, timer: 0, state,
    chips: h('div', { class: 'search-chips' }),
    status: h('p', { class: 'search-count', role: 'status', 'aria-live': 'polite' }),
    error: h('div', { class: 'search-error' }),
    results: h('div', { class: 'search-results' }),
    facets: h('div', { class: 'search-facets' }),
  };
  ui.root = h('div', { class: 'search' },
    h('h1', {}, 'Search the catalogue'),
    form, hint,
    h('div', { class: 'search-body' },
      h('aside', { class: 'panel search-filters', 'aria-label': 'Filters' },
        h('h2', {}, 'Filters'), ui.facets),
      h('section', { class: 'search-main', 'aria-label': 'Results' },
        ui.chips, ui.status, ui.error, ui.results)));
  setHint(ui);

  /** A change the user would step back over: a new history entry, results at once. */
  const change = (edit) => {
    edit(ui.state);
    clearTimeout(ui.timer);
    commit(ui.state, true);
    run(ui, ui.state);
  };
  ui.change = change;
  input.addEventListener('input', () => {
    ui.state.q = input.value;
    ui.state.offset = 0;
    clearTimeout(ui.timer);
    // A raw query is half-written CQL until Enter; other options search as one types.
    if (ui.state.option === 'query') return;
    ui.timer = setTimeout(() => {
      // The user may have moved on (a link followed) within the pause.
      if (!ui.root.isConnected) return;
      commit(ui.state, false);
      run(ui, ui.state);
    }, TYPING_PAUSE_MS);
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    change((s) => { s.q = input.value; s.offset = 0; });
  });
  option.addEventListener('change', () => {
    change((s) => { s.option = option.value; s.offset = 0; });
    setHint(ui);
  });
  sort.addEventListener('change', () => change((s) => { s.sort = sort.value; s.offset = 0; }));
  limit.addEventListener('change', () => change((s) => { s.limit = Number(limit.value); s.offset = 0; }));
  return ui;
}

function setHint(ui) {
  ui.hint.textContent = ui.state.option === 'query'
    ? 'Type a CQL query, such as title all "web" and languages == "eng", and press Enter.'
    : 'Results appear as you type. * matches any ending, as in photo*.';
}

/**
 * Asks for one page of results and the facets together, and shows them unless a later
 * search has been asked for meanwhile or the user has moved on.
 */
async function run(ui, state) {
  const mine = ++ui.generation;
  const query = searchQuery(state);
  showChips(ui);
  if (!query) {
    showEmpty(ui);
    return;
  }
  ui.root.classList.add('search-busy');
  ui.results.setAttribute('aria-busy', 'true');
  const facetQuery = new URLSearchParams({ query: query.cql });
  for (const facet of FACETS) facetQuery.append('facet', facet.size ? `${facet.field}:${facet.size}` : facet.field);
  const [results, facets, refs] = await Promise.allSettled([
    // expandAll: the basic fields lack the resource type and formats. A page is small.
    api('/search/instances', {
      query: { query: query.cql + query.sort, limit: state.limit, offset: state.offset, expandAll: true },
    }),
    api(`/search/instances/facets?${facetQuery}`),
    ui.refs,
  ]);
  if (mine !== ui.generation || !ui.root.isConnected) return;
  ui.root.classList.remove('search-busy');
  ui.results.removeAttribute('aria-busy');
  const tables = refs.status === 'fulfilled' ? refs.value : {};
  if (results.status === 'rejected') {
    ui.status.textContent = '';
    ui.error.replaceChildren(searchError(results.reason));
    ui.results.replaceChildren();
  } else {
    ui.error.replaceChildren();
    showResults(ui, results.value, tables);
  }
  if (facets.status === 'fulfilled') showFacets(ui, facets.value.facets || {}, tables);
  else if (results.status === 'fulfilled') ui.facets.replaceChildren(errorBox(facets.reason));
  else ui.facets.replaceChildren(h('p', { class: 'muted' }, 'No filters: the search failed.'));
}

/** A refused query says why in mod-search's words; say what to do about it too. */
function searchError(error) {
  const box = errorBox(error);
  if (error instanceof ApiError && (error.status === 400 || error.status === 422)) {
    box.prepend(h('strong', {}, 'The search could not be run. '));
  }
  return box;
}

function showEmpty(ui) {
  ui.root.classList.remove('search-busy');
  ui.status.textContent = '';
  ui.error.replaceChildren();
  ui.facets.replaceChildren(h('p', { class: 'muted' }, 'Filters by item status, location, language and more appear with the results.'));
  const example = (option, words, text) => h('li', {},
    h('button', {
      type: 'button', class: 'search-link',
      onclick: () => {
        ui.input.value = words;
        ui.option.value = option;
        ui.change((s) => { s.q = words; s.option = option; s.offset = 0; });
        setHint(ui);
        ui.input.focus();
      },
    }, words), ` ${text}`);
  ui.results.replaceChildren(h('div', { class: 'search-empty' },
    h('h2', {}, 'What are you looking for?'),
    h('p', {}, 'Type a few words: titles, names, subjects, or an identifier such as an ISBN, barcode or HRID. Choose "Search in" to look in one place only.'),
    h('ul', {},
      example('keyword', 'history', 'finds the word in titles, series and contributors.'),
      example('title', 'intro*', 'finds titles with a word starting "intro".'),
      example('query', 'languages == "eng" and items.status.name == "Checked out"',
        'is a query search in CQL, as FOLIO writes it.'))));
}

/** The chosen facet values as chips, each removable, and one to clear them all. */
function showChips(ui) {
  const chips = [];
  for (const [field, values] of ui.state.filters) {
    const facet = FACET.get(field);
    for (const value of values) {
      const label = `${facet.label}: ${ui.names?.get(`${field}:${value}`) || value}`;
      chips.push(h('button', {
        type: 'button', class: 'search-chip', 'aria-label': `Remove filter ${label}`,
        onclick: () => {
          ui.change((s) => { removeFilter(s, field, value); s.offset = 0; });
          // The chip is gone; the box is where the search goes on from.
          ui.input.focus();
        },
      }, label, h('span', { 'aria-hidden': 'true' }, ' ×')));
    }
  }
  if (chips.length > 1) {
    chips.push(h('button', {
      type: 'button', class: 'search-link',
      onclick: () => {
        ui.change((s) => { s.filters = new Map(); s.offset = 0; });
        ui.input.focus();
      },
    }, 'Clear all filters'));
  }
  ui.chips.replaceChildren(...chips);
  ui.chips.hidden = !chips.length;
}

function removeFilter(state, field, value) {
  const left = (state.filters.get(field) || []).filter((v) => v !== value);
  if (left.length) state.filters.set(field, left);
  else state.filters.delete(field);
}

function showResults(ui, body, tables) {
  const { totalRecords: total = 0, instances = [] } = body;
  // A pager button used from the keyboard is drawn anew: the focus goes back to it.
  const paged = ui.results.contains(document.activeElement) ? document.activeElement.dataset.pager : null;
  const { offset, limit } = ui.state;
  const first = instances.length ? offset + 1 : 0;
  ui.status.textContent = total === 1 ? '1 record found' : `${total.toLocaleString()} records found`;
  if (!instances.length) {
    ui.results.replaceChildren(h('p', { class: 'muted' },
      offset && total ? 'No records on this page.' : 'Nothing matches. Try fewer words, another "Search in", or fewer filters.'));
    return;
  }
  const rows = instances.map((instance) => h('tr', {},
    h('td', {}, h('a', { href: `#/record/${instance.id}` }, instance.title || '(no title)')),
    h('td', {}, contributorList(instance.contributors)),
    h('td', {}, publicationText(instance.publication)),
    h('td', { class: 'search-nowrap' }, instance.hrid || ''),
    h('td', {}, [named(tables.instanceTypes, instance.instanceTypeId),
      ...(instance.instanceFormatIds || []).map((f) => named(tables.instanceFormats, f))]
      .filter(Boolean).join('; '))));
  const table = h('table', { class: 'search-table' },
    h('caption', { class: 'search-sr' }, `Records ${first} to ${offset + instances.length} of ${total}`),
    h('thead', {}, h('tr', {}, ['Title', 'Contributors', 'Publication', 'HRID', 'Resource type']
      .map((name) => h('th', { scope: 'col' }, name)))),
    h('tbody', {}, rows));
  const last = offset + instances.length;
  const reachable = Math.min(total, MAX_WINDOW);
  const pager = h('nav', { class: 'search-pager', 'aria-label': 'Result pages' },
    h('button', {
      type: 'button', class: 'secondary', disabled: offset === 0, 'data-pager': 'previous',
      onclick: () => ui.change((s) => { s.offset = Math.max(0, offset - limit); }),
    }, '← Previous'),
    h('span', {}, `Records ${first.toLocaleString()}–${last.toLocaleString()} of ${total.toLocaleString()}`),
    h('button', {
      type: 'button', class: 'secondary', disabled: last >= reachable, 'data-pager': 'next',
      onclick: () => ui.change((s) => { s.offset = offset + limit; }),
    }, 'Next →'));
  ui.results.replaceChildren(h('div', { class: 'search-scroll' }, table), pager);
  if (paged) (pager.querySelector(`[data-pager="${paged}"]:not(:disabled)`) || pager.querySelector('button:not(:disabled)'))?.focus();
}

function contributorList(contributors = []) {
  const names = contributors.map((c) => c.name).filter(Boolean);
  return names.length > 3 ? `${names.slice(0, 3).join('; ')}; …` : names.join('; ');
}

function publicationText(publication = []) {
  return publication.map((p) => [p.publisher, p.dateOfPublication].filter(Boolean).join(', '))
    .filter(Boolean).join('; ');
}

/** The facets panel: each facet a group of checkboxes with counts, chosen ones first. */
function showFacets(ui, facets, tables) {
  // Keep the focus on the checkbox the user just used, which is drawn anew.
  const focused = ui.facets.contains(document.activeElement) ? document.activeElement.dataset.key : null;
  ui.names = new Map();
  const groups = [];
  for (const facet of FACETS) {
    const chosen = ui.state.filters.get(facet.field) || [];
    const values = (facets[facet.field]?.values || []).map((v) => ({ id: v.id, count: v.totalRecords }));
    // A chosen value no record holds any more is still shown, to be unchecked.
    for (const id of chosen) if (!values.some((v) => v.id === id)) values.unshift({ id, count: 0 });
    if (!values.length) continue;
    const nameOf = (id) => (facet.table ? named(tables[facet.table], id) : facet.name ? facet.name(id) : id);
    const boxes = values.map((value) => {
      const key = `${facet.field}:${value.id}`;
      const name = nameOf(value.id);
      ui.names.set(key, name);
      const boxId = `facet-${groups.length}-${values.indexOf(value)}-${searchIds}`;
      return h('li', {},
        h('input', {
          type: 'checkbox', id: boxId, 'data-key': key, checked: chosen.includes(value.id),
          onchange: (event) => ui.change((s) => {
            if (event.target.checked) s.filters.set(facet.field, [...(s.filters.get(facet.field) || []), value.id]);
            else removeFilter(s, facet.field, value.id);
            s.offset = 0;
          }),
        }),
        h('label', { for: boxId }, name, ' ', h('span', { class: 'search-facet-count' }, `(${value.count.toLocaleString()})`)));
    });
    groups.push(h('fieldset', { class: 'search-facet' }, h('legend', {}, facet.label), h('ul', {}, boxes)));
  }
  ui.facets.replaceChildren(...(groups.length ? groups : [h('p', { class: 'muted' }, 'No filters for these results.')]));
  showChips(ui);
  if (focused) ui.facets.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus();
}

// ---------------------------------------------------------------------------------------
// The record view: `#/record/{instanceId}?tab=holdings|marc|history`.

const TABS = [
  ['instance', 'Instance'],
  ['holdings', 'Holdings and items'],
  ['marc', 'MARC record'],
  ['history', 'History'],
];

view('record', 'Record', async (container, { args, params }) => {
  const id = args[0] || '';
  const back = h('a', { class: 'record-back', href: sessionStorage.getItem(LAST_SEARCH) || '#/search' },
    '← Back to search results');
  container.append(h('p', {}, back));
  const status = h('p', { class: 'muted' }, 'Loading the record…');
  container.append(status);
  let instance;
  try {
    instance = await api(`/instance-storage/instances/${encodeURIComponent(id)}`);
  } catch (error) {
    status.replaceWith(errorBox(error.status === 404 ? 'There is no instance with this id: it may have been deleted.' : error));
    return;
  }
  if (!container.isConnected) return;
  document.title = `${instance.title || 'Record'} · Quire`;
  status.replaceWith(
    h('h1', { class: 'record-title' }, instance.title || '(no title)'),
    h('p', { class: 'record-facts muted' },
      [instance.hrid && `HRID ${instance.hrid}`, `Source ${instance.source}`,
        instance.staffSuppress && 'Staff suppressed', instance.discoverySuppress && 'Suppressed from discovery']
        .filter(Boolean).join(' · ')));
  const loaders = {
    instance: (panel) => instancePanel(panel, instance),
    holdings: (panel) => holdingsPanel(panel, instance),
    marc: (panel) => marcPanel(panel, instance),
    history: (panel) => historyPanel(panel, instance),
  };
  container.append(tabs(TABS, params.get('tab'), loaders));
});

/**
 * WAI-ARIA tabs: arrow keys, Home and End move between them; each panel is filled the
 * first time it is shown. The chosen tab is kept in the address for a reload.
 */
function tabs(list, chosen, loaders) {
  const tabList = h('div', { role: 'tablist', 'aria-label': 'Record sections', class: 'record-tablist' });
  const panels = [];
  const buttons = list.map(([name, label]) => {
    const panel = h('section', {
      role: 'tabpanel', id: `panel-${name}`, 'aria-labelledby': `tab-${name}`, tabindex: '0', hidden: true,
      class: 'record-panel',
    });
    panels.push(panel);
    return h('button', {
      type: 'button', role: 'tab', id: `tab-${name}`, 'aria-controls': `panel-${name}`, 'data-tab': name,
    }, label);
  });
  const filled = new Set();
  const select = (index, focus) => {
    buttons.forEach((button, i) => {
      const on = i === index;
      button.setAttribute('aria-selected', String(on));
      button.tabIndex = on ? 0 : -1;
      panels[i].hidden = !on;
    });
    const name = buttons[index].dataset.tab;
    if (focus) buttons[index].focus();
    const url = new URL(location.href);
    const [path] = url.hash.split('?');
    history.replaceState(null, '', index ? `${path}?tab=${name}` : path);
    if (!filled.has(name)) {
      filled.add(name);
      Promise.resolve(loaders[name](panels[index])).catch((error) => panels[index].append(errorBox(error)));
    }
  };
  buttons.forEach((button, i) => {
    button.addEventListener('click', () => select(i, false));
    button.addEventListener('keydown', (event) => {
      const moves = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: buttons.length - 1 };
      if (!(event.key in moves)) return;
      event.preventDefault();
      select((moves[event.key] + buttons.length) % buttons.length, true);
    });
  });
  tabList.append(...buttons);
  const start = Math.max(0, list.findIndex(([name]) => name === chosen));
  const wrapper = h('div', { class: 'record-tabs' }, tabList, panels);
  select(start, false);
  return wrapper;
}

/** A definition list of the rows that have a value; a list value becomes a list. */
function facts(rows) {
  const items = [];
  for (const [label, value] of rows) {
    const values = (Array.isArray(value) ? value : [value]).filter((v) => v !== '' && v != null && v !== false);
    if (!values.length) continue;
    items.push(h('dt', {}, label),
      h('dd', {}, values.length > 1 ? h('ul', { class: 'record-list' }, values.map((v) => h('li', {}, v))) : values[0]));
  }
  return h('dl', { class: 'facts' }, items);
}

async function instancePanel(panel, instance) {
  const tables = await references(['identifierTypes', 'contributorNameTypes', 'instanceTypes', 'instanceFormats']);
  const identifiers = (instance.identifiers || []).map((i) =>
    h('span', {}, h('span', { class: 'muted' }, `${named(tables.identifierTypes, i.identifierTypeId)}: `), i.value));
  const contributors = (instance.contributors || []).map((c) =>
    [c.name, c.contributorTypeText && ` (${c.contributorTypeText})`, c.primary && ' — primary',
      h('span', { class: 'muted' }, ` ${named(tables.contributorNameTypes, c.contributorNameTypeId)}`)]
      .filter(Boolean));
  const publications = (instance.publication || []).map((p) =>
    [p.place, p.publisher, p.dateOfPublication].filter(Boolean).join(', '));
  const notes = (instance.notes || []).map((n) => (n.staffOnly ? `${n.note} (staff only)` : n.note));
  const metadata = instance.metadata || {};
  panel.append(
    h('h2', { class: 'search-sr' }, 'Instance'),
    facts([
      ['Title', instance.title],
      ['Index title', instance.indexTitle],
      ['Alternative titles', (instance.alternativeTitles || []).map((t) => t.alternativeTitle)],
      ['Series', (instance.series || []).map((s) => s.value)],
      ['Contributors', contributors.map((parts) => h('span', {}, parts))],
      ['Publication', publications],
      ['Edition', instance.editions || []],
      ['Physical description', instance.physicalDescriptions || []],
      ['Identifiers', identifiers],
      ['Subjects', (instance.subjects || []).map((s) => s.value)],
      ['Classification', (instance.classifications || []).map((c) => c.classificationNumber)],
      ['Languages', (instance.languages || []).map((code) => `${languageName(code)} (${code})`)],
      ['Resource type', named(tables.instanceTypes, instance.instanceTypeId)],
      ['Formats', (instance.instanceFormatIds || []).map((f) => named(tables.instanceFormats, f))],
      ['Notes', notes],
      ['Administrative notes', instance.administrativeNotes || []],
      ['Instance HRID', instance.hrid],
      ['Source', instance.source],
      ['Staff suppressed', instance.staffSuppress ? 'Yes' : 'No'],
      ['Suppressed from discovery', instance.discoverySuppress ? 'Yes' : 'No'],
      ['Previously held', instance.previouslyHeld ? 'Yes' : ''],
      ['Created', formatDate(metadata.createdDate, true)],
      ['Updated', formatDate(metadata.updatedDate, true)],
      ['Instance id', h('code', {}, instance.id)],
    ]));
}

/** An item with any other status may be on loan: its due date is asked for. */
const AVAILABLE = 'Available';

async function holdingsPanel(panel, instance) {
  panel.append(h('h2', { class: 'search-sr' }, 'Holdings and items'));
  const [holdingsBody, tables] = await Promise.all([
    api('/holdings-storage/holdings', { query: { query: `instanceId==${instance.id}`, limit: 1000 } }),
    references(['locations', 'holdingsTypes', 'callNumberTypes']),
  ]);
  const holdings = holdingsBody.holdingsRecords || [];
  if (!holdings.length) {
    panel.append(h('p', { class: 'muted' }, 'This instance has no holdings.'));
    return;
  }
  // One request for the items of every holdings record, one for their open loans.
  const itemsBody = await api('/inventory/items', {
    query: { query: `holdingsRecordId==(${holdings.map((r) => r.id).join(' or ')})`, limit: 1000 },
  });
  const items = itemsBody.items || [];
  const lent = items.filter((item) => item.status?.name && item.status.name !== AVAILABLE).map((item) => item.id);
  const loans = new Map();
  try {
    // In chunks well inside a query's limit of 1,000 terms; nearly always one.
    const chunks = [];
    for (let i = 0; i < lent.length; i += 200) chunks.push(lent.slice(i, i + 200));
    const bodies = await Promise.all(chunks.map((ids) => api('/circulation/loans', {
      query: { query: `itemId==(${ids.join(' or ')}) and status.name=="Open"`, limit: ids.length },
    })));
    for (const loan of bodies.flatMap((body) => body.loans || [])) loans.set(loan.itemId, loan);
  } catch (error) {
    panel.append(errorBox(`Due dates could not be read: ${error.message}`));
  }
  if (itemsBody.totalRecords > items.length) {
    panel.append(h('p', { class: 'warn' }, `Showing ${items.length} of ${itemsBody.totalRecords} items.`));
  }
  for (const record of holdings) {
    const own = items.filter((item) => item.holdingsRecordId === record.id);
    panel.append(holdingsSection(record, own, loans, tables));
  }
}

function callNumber(parts) {
  return [parts.callNumberPrefix ?? parts.prefix, parts.callNumber, parts.callNumberSuffix ?? parts.suffix]
    .filter(Boolean).join(' ');
}

function holdingsSection(record, items, loans, tables) {
  const location = named(tables.locations, record.effectiveLocationId || record.permanentLocationId);
  const heading = [location, callNumber(record)].filter(Boolean).join(' · ');
  const rows = items.map((item) => {
    const loan = loans.get(item.id);
    const status = item.status?.name || '';
    const parts = item.effectiveCallNumberComponents || {};
    const volume = [item.volume, item.enumeration, item.chronology, item.copyNumber && `c. ${item.copyNumber}`]
      .filter(Boolean).join(' ');
    return h('tr', {},
      h('td', { class: 'search-nowrap' }, item.barcode || h('span', { class: 'muted' }, 'none')),
      h('td', {}, status, loan?.dueDate ? dueDate(loan.dueDate) : null),
      h('td', {}, item.effectiveLocation?.name || ''),
      h('td', {}, [callNumber(parts), volume].filter(Boolean).join(' ')),
      h('td', {}, item.materialType?.name || ''),
      h('td', {}, (item.temporaryLoanType || item.permanentLoanType)?.name || ''),
      h('td', { class: 'search-nowrap' }, item.hrid || ''));
  });
  return h('section', { class: 'record-holdings panel', 'aria-label': `Holdings ${heading}` },
    h('h3', {}, `Holdings: ${heading || record.hrid}`),
    facts([
      ['Holdings HRID', record.hrid],
      ['Permanent location', named(tables.locations, record.permanentLocationId)],
      ['Temporary location', record.temporaryLocationId && named(tables.locations, record.temporaryLocationId)],
      ['Call number', callNumber(record)],
      ['Call number type', record.callNumberTypeId && named(tables.callNumberTypes, record.callNumberTypeId)],
      ['Holdings type', record.holdingsTypeId && named(tables.holdingsTypes, record.holdingsTypeId)],
      ['Notes', (record.notes || []).map((n) => n.note)],
    ]),
    items.length
      ? h('div', { class: 'search-scroll' }, h('table', { class: 'record-items' },
        h('caption', {}, items.length === 1 ? '1 item' : `${items.length} items`),
        h('thead', {}, h('tr', {}, ['Barcode', 'Status', 'Effective location', 'Call number', 'Material type', 'Loan type', 'Item HRID']
          .map((name) => h('th', { scope: 'col' }, name)))),
        h('tbody', {}, rows)))
      : h('p', { class: 'muted' }, 'No items.'));
}

function dueDate(iso) {
  const overdue = new Date(iso) < new Date();
  return h('div', { class: overdue ? 'record-overdue' : 'muted' },
    `Due ${formatDate(iso, true)}${overdue ? ' (overdue)' : ''}`);
}

async function marcPanel(panel, instance) {
  panel.append(h('h2', { class: 'search-sr' }, 'MARC record'));
  let record;
  try {
    record = await api(`/source-storage/records/${instance.id}/formatted`, { query: { idType: 'INSTANCE' } });
  } catch (error) {
    if (error.status === 404) {
      panel.append(h('p', { class: 'muted' }, instance.source === 'MARC'
        ? 'The instance says its source is MARC, but Source Record Storage has no record for it.'
        : `This instance was catalogued in ${instance.source || 'FOLIO'}: it has no MARC record.`));
      return;
    }
    throw error;
  }
  const content = record.parsedRecord?.content;
  if (!content) {
    panel.append(h('pre', { class: 'marc' }, record.parsedRecord?.formattedContent || ''));
    return;
  }
  panel.append(
    h('p', { class: 'muted' }, `Source record ${record.id}, generation ${record.generation ?? 0}, updated ${formatDate(record.metadata?.updatedDate, true)}.`),
    h('pre', { class: 'marc', 'aria-label': 'MARC fields' }, marcLines(content)));
}

/** MARC in the tagged display cataloguers read: `245 10 $a Title : $b rest /`. */
function marcLines(content) {
  const blank = (indicator) => (!indicator || indicator === ' ' ? '\\' : indicator);
  const lines = [h('span', { class: 'record-marc-line' }, h('b', {}, 'LDR'), ` ${content.leader}\n`)];
  for (const field of content.fields || []) {
    const [tag, value] = Object.entries(field)[0];
    if (typeof value === 'string') {
      lines.push(h('span', { class: 'record-marc-line' }, h('b', {}, tag), ` ${value}\n`));
      continue;
    }
    const subfields = (value.subfields || []).flatMap((subfield) => {
      const [code, text] = Object.entries(subfield)[0];
      return [' ', h('span', { class: 'record-marc-code' }, `$${code}`), ` ${text}`];
    });
    lines.push(h('span', { class: 'record-marc-line' },
      h('b', {}, tag), ` ${blank(value.ind1)}${blank(value.ind2)}`, subfields, '\n'));
  }
  return lines;
}

const ACTIONS = { CREATE: 'Created', UPDATE: 'Updated', DELETE: 'Deleted' };

async function historyPanel(panel, instance) {
  panel.append(
    h('h2', { class: 'search-sr' }, 'History'),
    h('p', { class: 'muted' }, 'Every change to the instance and its holdings is listed with its time. Who made a change is known for the creation and the latest change, and, with what changed, for changes made while Quire publishes events.'));
  const holdings = (await api('/holdings-storage/holdings', { query: { query: `instanceId==${instance.id}`, limit: 100 } }))
    .holdingsRecords || [];
  const locations = await references(['locations']);
  const sections = [
    ['Instance', `/audit-data/inventory/instance/${instance.id}`],
    ...holdings.map((record) => [
      `Holdings ${record.hrid || ''} · ${named(locations.locations, record.permanentLocationId)}`,
      `/audit-data/inventory/holdings/${record.id}`]),
  ];
  const shown = sections.map(([title, path]) => {
    const section = h('section', { class: 'record-history' }, h('h3', {}, title));
    panel.append(section);
    return historyPage(section, path);
  });
  await Promise.all(shown);
}

/** One page of a record's changes into `section`, with a button for the older ones. */
async function historyPage(section, path, before) {
  const body = await api(path, { query: { eventTs: before } });
  const events = body.inventoryAuditItems || [];
  const users = await userNames(events.map((e) => e.userId));
  let table = section.querySelector('tbody');
  if (!table) {
    if (!events.length) {
      section.append(h('p', { class: 'muted' }, 'No changes recorded.'));
      return;
    }
    table = h('tbody');
    section.append(h('div', { class: 'search-scroll' }, h('table', { class: 'record-history-table' },
      h('caption', { class: 'search-sr' }, `${section.firstChild.textContent}: ${body.totalRecords} changes`),
      h('thead', {}, h('tr', {}, ['When', 'Action', 'By', 'What changed'].map((name) => h('th', { scope: 'col' }, name)))),
      table)));
  }
  for (const event of events) {
    table.append(h('tr', {},
      h('td', { class: 'search-nowrap' }, formatDate(event.eventDate, true)),
      h('td', {}, ACTIONS[event.action] || event.action),
      h('td', {}, event.userId ? users.get(event.userId) || event.userId : h('span', { class: 'muted' }, 'not recorded')),
      h('td', {}, diffList(event.diff))));
  }
  section.querySelector('.record-more')?.remove();
  const listed = table.children.length;
  if (events.length && listed < body.totalRecords) {
    const more = h('button', { type: 'button', class: 'secondary record-more' }, `Show older changes (${body.totalRecords - listed} more)`);
    more.addEventListener('click', () => {
      more.disabled = true;
      historyPage(section, path, events.at(-1).eventTs).catch((error) => more.replaceWith(errorBox(error)));
    });
    section.append(more);
  }
}

/** What an update changed, from mod-audit's diff: `title: Old → New`, list members. */
function diffList(diff) {
  if (!diff) return '';
  const show = (value) => (value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));
  const lines = [
    ...(diff.fieldChanges || []).map((c) => `${c.fullPath}: ${
      c.changeType === 'ADDED' ? `added ${show(c.newValue)}`
        : c.changeType === 'REMOVED' ? `removed ${show(c.oldValue)}`
          : `${show(c.oldValue)} → ${show(c.newValue)}`}`),
    ...(diff.collectionChanges || []).flatMap((c) => (c.itemChanges || []).map((i) =>
      `${c.collectionName}: ${i.changeType === 'ADDED' ? `added ${show(i.newValue)}` : `removed ${show(i.oldValue)}`}`)),
  ];
  return lines.length ? h('ul', { class: 'record-list' }, lines.map((line) => h('li', {}, line))) : '';
}

/** Users' names by id, one request for all; an id stays as it is if it cannot be read. */
async function userNames(ids) {
  const wanted = [...new Set(ids.filter(Boolean))];
  const names = new Map();
  if (!wanted.length) return names;
  try {
    const body = await api('/users', { query: { query: `id==(${wanted.join(' or ')})`, limit: wanted.length } });
    for (const user of body.users || []) {
      const p = user.personal || {};
      names.set(user.id, [p.firstName, p.lastName].filter(Boolean).join(' ') || user.username);
    }
  } catch {
    // Without users.collection.get the ids are shown.
  }
  return names;
}
