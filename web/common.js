// What the admin pages share: building elements, asking the admin API, one-line rows with their
// tone (failed red, pending amber, ok plain) that open to show their fields, field tables, and the
// links between events, histories and requests. Written into each page (routes/admin-pages.ts).
'use strict';

const $ = (id) => document.getElementById(id);

/** An element with attributes (class, on<event> handlers, others as attributes) and children. */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

const text = (v) => (v === undefined ? '∅' : typeof v === 'string' ? v : JSON.stringify(v));

function say(message, error) {
  const status = $('status');
  status.textContent = message;
  status.classList.toggle('error', Boolean(error));
}

/** GET an admin API path: its JSON, or an Error with the gateway's explanation. */
async function api(path) {
  const response = await fetch(path, { credentials: 'same-origin' });
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const error = new Error(body?.error?.explanation || `${response.status} ${response.statusText}`);
    error.status = response.status;
    throw error;
  }
  return body;
}

/** 23:04:18.765 (UTC), the date too when it is not today; the whole instant as the title. */
function when(iso) {
  const at = String(iso || '');
  const today = new Date().toISOString().slice(0, 10);
  const shown = at.slice(0, 10) === today ? at.slice(11, 23) : `${at.slice(5, 10)} ${at.slice(11, 19)}`;
  return el('time', { class: 'when', datetime: at, title: at }, shown);
}

const historyHref = (stream, revision) => `/admin/history?stream=${encodeURIComponent(stream)}${revision === undefined ? '' : `#revision-${revision}`}`;
const historyLink = (stream, label, revision) => el('a', { href: historyHref(stream, revision), class: 'history' }, label || stream);

/** The request journal on the timeline page, searched by correlation id, the request opened. */
function requestHref(requestId, correlationId) {
  const params = new URLSearchParams({ view: 'requests' });
  if (correlationId || requestId) params.set('correlationId', correlationId || requestId);
  if (requestId) params.set('open', requestId);
  return `/admin/timeline?${params}`;
}

/** A value's leaves by dotted path (transactions.0.amount). */
function leaves(value, prefix = '', out = []) {
  if (value && typeof value === 'object') {
    for (const [k, v] of Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value)) leaves(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) out.push([prefix, value]);
  return out;
}

/** A table of a value's fields, the changed ones highlighted. */
function fieldTable(value, label, changed = new Set()) {
  const rows = leaves(value).map(([path, v]) => el('tr', changed.has(path) ? { class: 'changed' } : {}, el('td', {}, path), el('td', {}, text(v))));
  return el('table', { class: 'fields', 'aria-label': label },
    el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'field'), el('th', { scope: 'col' }, 'value'))), el('tbody', {}, rows));
}

const json = (value) => el('pre', {}, typeof value === 'string' ? value : JSON.stringify(value, null, 2));

/**
 * A one-line row: a dot of its tone, when, what happened (and the rule that decided it), and
 * `meta`; a click anywhere on it but a link opens `detail()` under it, built on first opening.
 * What opens it is a button (Enter, Space) of the dot, time and words; `meta`'s links are beside
 * it, not inside, so that each is reached and named on its own.
 */
function row({ tone, at, summary, rule, ruleWord = 'decided by', meta = [], detail, attrs = {}, tag = 'li' }) {
  const item = el(tag, { ...attrs, class: `${attrs.class || ''} tone-${tone || 'ok'}`.trim() });
  const what = el('span', { class: 'what' }, el('span', { class: 'summary' }, summary), rule ? el('span', { class: 'rule' }, `${ruleWord} ${rule}`) : null);
  const button = el('button', { type: 'button', class: 'toggle', 'aria-expanded': 'false' }, el('span', { class: 'dot', 'aria-hidden': 'true' }), when(at), what);
  const line = el('div', { class: 'row' }, button, el('span', { class: 'meta' }, meta));
  item.append(line);
  const toggle = (open) => {
    let panel = item.querySelector(':scope > .detail');
    if (open === undefined) open = !panel || panel.hidden;
    if (open && !panel) { panel = el('div', { class: 'detail' }, detail()); line.after(panel); }
    if (panel) panel.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
  };
  // The button's own click (a click on it, Enter, Space) comes here too. A mouse's drag that
  // selected text in the row (an id to copy) ends in a click too: it leaves the row as it was.
  let down = [0, 0];
  line.addEventListener('mousedown', (e) => { down = [e.clientX, e.clientY]; });
  line.addEventListener('click', (e) => {
    const dragged = e.detail > 0 && Math.hypot(e.clientX - down[0], e.clientY - down[1]) > 3 && !getSelection()?.isCollapsed;
    if (!dragged && !e.target.closest('a, button:not(.toggle)')) toggle();
  });
  item.open = toggle;
  return item;
}

/** Every row of the page opened or closed (the Expanded switch). */
function expandAll(container, open) {
  for (const item of container.querySelectorAll('li')) if (item.open) item.open(open);
}

/** The request body and answer of a journal entry (its masked parts), whatever their wrapping. */
const bodyOf = (part) => (part && typeof part === 'object' && !Array.isArray(part) && 'body' in part ? part.body : part);

/**
 * A gateway path without what all of them repeat (the merchant is shown beside it):
 * "v100 order/20000000001/transaction/ref-1"; any other path as it is.
 */
function shortPath(path) {
  const match = /^\/api\/rest\/version\/(\d+)\/merchant\/[^/]+\/?(.*)$/.exec(String(path || ''));
  return match ? `v${match[1]} ${match[2]}`.trimEnd() : String(path || '');
}

/** A request's method and path in a chip, its leading segments dropped (…/) so that its ids show; whole as its title. */
function pathChip(method, path) {
  const max = 52;
  let shown = `${method} ${shortPath(path)}`;
  const segments = shortPath(path).split('/');
  while (shown.length > max && segments.length > 1) { segments.shift(); shown = `${method} …/${segments.join('/')}`; }
  return el('span', { class: 'chip', title: `${method} ${path}` }, shown);
}

/** A journal entry in a few words: "REFUND 60.00 USD", else its operation, else its method and path. */
function requestTitle(entry) {
  const body = bodyOf(entry.request);
  const op = body && typeof body === 'object' ? body.apiOperation : undefined;
  const amount = body?.transaction?.amount ?? body?.order?.amount;
  const currency = body?.transaction?.currency ?? body?.order?.currency ?? '';
  if (op) return `${op}${amount !== undefined ? ` ${amount} ${currency}`.trimEnd() : ''}`;
  return entry.operation || `${entry.method} ${shortPath(entry.path)}`;
}

/** Why a request was refused: the journal's refusal, else the error of its answer. */
function refusalOf(entry) {
  if (entry.refusal) return entry.refusal;
  const error = bodyOf(entry.response)?.error;
  return error ? { field: error.field, explanation: error.explanation || error.cause } : undefined;
}

/** Why the journal lacks a request the log names: it lives in the process's memory, within its bounds. */
const NOT_KEPT = 'the request journal is kept in memory: requests from before the gateway’s last start, or past its size or age limit, are not kept';

const statusBadge = (status) => el('span', { class: `badge s${String(status)[0]}` }, String(status));

/**
 * Each input with a data-short-placeholder: its whole placeholder where the box has room for it,
 * else the shorter one (a phone's width), so that what it asks for is never cut off.
 */
function fitPlaceholders() {
  const measure = document.createElement('canvas').getContext('2d');
  for (const input of document.querySelectorAll('input[data-short-placeholder]')) {
    if (input.clientWidth === 0) continue; // not laid out (hidden): measured when shown
    input.dataset.longPlaceholder ||= input.placeholder;
    const style = getComputedStyle(input);
    measure.font = style.font;
    const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const fits = measure.measureText(input.dataset.longPlaceholder).width <= room;
    input.placeholder = fits ? input.dataset.longPlaceholder : input.dataset.shortPlaceholder;
  }
}
fitPlaceholders();
window.addEventListener('resize', fitPlaceholders);
