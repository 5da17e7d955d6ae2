// What the import and bulk-edit views share: staff hand the server a file and watch the
// work it starts, polling while it runs (a poll stops by itself once its view has left
// the page). Here: a file chooser, progress bars, a polite live region, pagers, tables,
// and saving a file the server made.
import { api, h } from './core.js';

/** How often a running job or operation is asked how far it has got. */
export const POLL_MS = 700;
/** A live region repeats the count at most this often, so a screen reader is not flooded. */
export const ANNOUNCE_MS = 5000;

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------
// Shared pieces

/**
 * A labelled file input inside a zone a file can be dropped on. The input stays the one
 * source of truth: a dropped file is put into it, so the form reads one place.
 */
export function fileChooser({ id, label, accept, hint }) {
  const input = h('input', { id, type: 'file', accept, required: true, 'aria-describedby': `${id}-hint` });
  const zone = h('div', { class: 'jobs-drop' },
    h('label', { for: id }, label),
    input,
    h('p', { id: `${id}-hint`, class: 'muted' }, hint));
  zone.addEventListener('dragover', (event) => {
    event.preventDefault();
    zone.classList.add('jobs-drop-over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('jobs-drop-over'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('jobs-drop-over');
    if (event.dataTransfer?.files.length) {
      input.files = event.dataTransfer.files;
      input.dispatchEvent(new Event('change', { bubbles: true }));
    }
  });
  return { element: zone, input };
}

/** A labelled `<progress>` with its count beside it; indeterminate until a total is known. */
export function progressBar(id, label) {
  const bar = h('progress', { id, max: 1 });
  const count = h('span', { class: 'jobs-count' });
  const labelled = h('label', { for: id }, label);
  return {
    element: h('div', { class: 'jobs-progress' }, labelled, bar, count),
    update(current, total, words) {
      if (total > 0) {
        bar.max = total;
        bar.value = Math.min(current, total);
      } else {
        bar.removeAttribute('value');
      }
      count.textContent = words ?? (total > 0 ? `${current} of ${total}` : '');
    },
    label(text) {
      labelled.textContent = text;
    },
  };
}

/**
 * A polite live region: `say` speaks at once (a new status, a result); a running count goes
 * through `tick`, which speaks at most every ANNOUNCE_MS. `shown: false` keeps it for
 * screen readers only, where the page already shows the same words.
 */
export function announcer({ shown = true } = {}) {
  const element = h('p', { class: shown ? 'jobs-live' : 'jobs-sr', role: 'status', 'aria-live': 'polite' });
  let last = 0;
  return {
    element,
    say(text) {
      last = Date.now();
      if (element.textContent !== text) element.textContent = text;
    },
    tick(text) {
      if (Date.now() - last >= ANNOUNCE_MS) this.say(text);
    },
  };
}

/**
 * "1–25 of 100" with Previous and Next; `onPage(offset)` shows another page (a promise).
 * The page redraws its section, pager included, so focus goes back to the same button.
 */
export function pager({ offset, limit, total, onPage, label }) {
  if (total <= limit) return null;
  const last = Math.min(offset + limit, total);
  const turn = async (event, next) => {
    const section = event.currentTarget.closest('section');
    const name = event.currentTarget.textContent;
    await onPage(next);
    const buttons = [...(section?.querySelectorAll('.jobs-pager button') || [])];
    (buttons.find((b) => b.textContent === name && !b.disabled) || buttons.find((b) => !b.disabled))?.focus();
  };
  return h('nav', { class: 'jobs-pager', 'aria-label': label },
    h('button', {
      type: 'button', class: 'secondary', disabled: offset === 0, onclick: (event) => turn(event, Math.max(0, offset - limit)),
    }, 'Previous'),
    h('span', {}, `${offset + 1}–${last} of ${total}`),
    h('button', {
      type: 'button', class: 'secondary', disabled: last >= total, onclick: (event) => turn(event, offset + limit),
    }, 'Next'));
}

/** A table head of column names. */
export function head(...names) {
  return h('thead', {}, h('tr', {}, names.flat().map((name) => h('th', { scope: 'col' }, name))));
}

/** Replaces an element's children, leaving out parts that are absent (null, false). */
export function fill(element, ...children) {
  const present = (child) => child !== null && child !== undefined && child !== false;
  element.replaceChildren(...children.flat(Infinity).filter(present));
  return element;
}

/** A `<select>` of `[value, text]` pairs with `selected` chosen. */
export function select(attrs, choices, selected) {
  return h('select', attrs, choices.map(([value, text]) => h('option', { value, selected: value === selected }, text)));
}

/** A table that scrolls sideways on its own, reachable by keyboard. */
export function scroller(label, table) {
  return h('div', { class: 'jobs-scroll', role: 'region', 'aria-label': `${label}, table`, tabindex: '0' }, table);
}

export function formatSize(bytes) {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The file name a Content-Disposition header gives, if any. */
export function dispositionName(header) {
  const match = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(header || '');
  return match ? decodeURIComponent(match[1]) : '';
}

/**
 * Saves a file the API serves. The cookies that carry the session go only with a
 * same-origin fetch, so the file is fetched here and handed to the browser as an object
 * URL behind a download link.
 */
export async function saveFile(path, fallbackName) {
  const response = await api(path, { raw: true });
  const blob = await response.blob();
  const name = dispositionName(response.headers.get('Content-Disposition')) || fallbackName;
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: name, hidden: true }, name);
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
