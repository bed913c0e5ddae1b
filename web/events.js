// The timeline's events view: every event, newest first, one line each in the gateway's words
// (the API's outcome: summary, tone, rule), opened for its fields; older pages below ("Load
// older"), new events live at the top. A notification's events are grouped under the order event
// that caused it (its causationId), one line per notification, and can be hidden.
'use strict';

const events = {
  list: $('events'), form: $('filters'), more: $('more'), follow: $('follow'), expanded: $('expanded'),
  next: null, head: 0, source: null, byPosition: new Map(), byId: new Map(), notes: new Map(),
};

function eventFilters() {
  const params = new URLSearchParams();
  for (const [key, value] of new FormData(events.form)) if (typeof value === 'string' && value.trim()) params.set(key, value.trim());
  return params;
}

const isNotification = (e) => e.stream.startsWith('notification-');

function eventDetail(e) {
  const m = e.metadata || {};
  const links = el('div', { class: 'links' }, historyLink(e.stream, `History of this ${e.stream.split('-')[0]} →`, e.revision),
    m.requestId ? el('a', { href: requestHref(m.requestId, m.correlationId), class: 'request' }, 'The request →') : null);
  const request = m.reactor ? `by the ${m.reactor} reactor` : m.method ? `${m.method} ${m.path}` : '';
  return [
    links,
    el('div', { class: 'rule' }, el('code', {}, `${e.stream} @ ${e.revision}`), ` · position ${e.position}`, request ? ' · ' : '', request ? el('code', {}, request) : null,
      m.correlationId ? ' · correlation ' : '', m.correlationId ? el('code', {}, m.correlationId) : null),
    el('h4', {}, 'Fields'), fieldTable(e.data, `Fields of ${e.type} at position ${e.position}`),
    el('details', {}, el('summary', {}, 'Raw event'), json({ id: e.id, type: e.type, data: e.data, metadata: m })),
  ];
}

function eventRow(e, fresh) {
  const merchant = e.metadata?.merchantId || e.data?.merchantId || '';
  const item = row({
    tone: e.outcome?.tone, at: e.recordedAt, summary: e.outcome?.summary || e.type, rule: e.outcome?.rule,
    meta: [el('span', { class: 'chip', title: e.stream }, e.stream), merchant ? el('span', {}, merchant) : null,
      el('a', { class: 'history', href: historyHref(e.stream, e.revision), 'aria-label': `History of ${e.stream}` }, 'History →')],
    detail: () => eventDetail(e),
    attrs: { class: `event${fresh ? ' fresh' : ''}${isNotification(e) ? ' notification' : ''}`, 'data-type': e.type, 'data-position': String(e.position), 'data-id': e.id },
  });
  if (events.expanded.checked) item.open(true);
  return item;
}

/** One line per notification under its cause: the latest event's words, the others when opened. */
function attachNotification(e, cause, fresh) {
  let group = events.notes.get(e.stream);
  if (!group) {
    let list = cause.querySelector(':scope > ul.notes');
    if (!list) { list = el('ul', { class: 'notes', 'aria-label': 'Notifications it sent' }); cause.append(list); }
    group = { events: [], item: null, list };
    events.notes.set(e.stream, group);
  }
  group.events.push(e);
  group.events.sort((a, b) => a.position - b.position);
  const latest = group.events.at(-1);
  const item = row({
    tone: latest.outcome?.tone, at: latest.recordedAt, summary: latest.outcome?.summary || latest.type,
    meta: [el('span', {}, `${group.events.length} event${group.events.length === 1 ? '' : 's'}`), historyLink(e.stream, 'History →')],
    detail: () => el('ol', { class: 'rows' }, group.events.map((n) => eventRow(n, false))),
    attrs: { class: `notification${fresh ? ' fresh' : ''}`, 'data-stream': e.stream, 'data-type': latest.type },
  });
  if (group.item) group.item.replaceWith(item); else group.list.append(item);
  group.item = item;
}

/** Adds an event: at the top when it is new (live), else below the ones shown (an older page). */
function addEvent(e, fresh) {
  if (events.byPosition.has(e.position)) return;
  const cause = isNotification(e) ? events.byId.get(e.metadata?.causationId) : undefined;
  if (cause) {
    events.byPosition.set(e.position, cause);
    attachNotification(e, cause, fresh);
    return;
  }
  const item = eventRow(e, fresh);
  events.byPosition.set(e.position, item);
  events.byId.set(e.id, item);
  if (fresh) events.list.prepend(item); else events.list.append(item);
}

const FILTER_NAMES = { stream: 'stream', category: 'category', correlationId: 'correlation id', merchantId: 'merchant' };

/** An empty list says why: nothing recorded yet, or nothing matching the filters (a refused request records none: the journal has it). */
function emptyEvents(filters) {
  if ([...filters.keys()].length === 0) return el('li', { class: 'empty' }, 'No events yet: send a request to the gateway and it shows here.');
  const named = [...filters].map(([key, value]) => `${FILTER_NAMES[key] || key} ${value}`).join(', ');
  const correlation = filters.get('correlationId');
  return el('li', { class: 'empty' }, `No event matches ${named}.`, correlation
    ? [' A refused request records no event: ', el('a', { href: requestHref(undefined, correlation) }, `the requests with correlation id ${correlation} →`)] : null);
}

function eventsStatus(extra) {
  const shown = events.byPosition.size;
  say(`${shown} event${shown === 1 ? '' : 's'} · newest first · log head at position ${events.head}${events.follow.checked ? ' · following live' : ''}${extra || ''}`);
}

async function loadEvents(reset) {
  if (reset) {
    events.list.replaceChildren();
    for (const map of [events.byPosition, events.byId, events.notes]) map.clear();
    events.next = null;
  }
  const params = eventFilters();
  params.set('order', 'desc');
  params.set('limit', '100');
  if (!reset && events.next !== null) params.set('before', String(events.next));
  let page;
  try { page = await api(`/admin/api/events?${params}`); } catch (error) { say(`Error: ${error.message}`, true); return; }
  // The causes before their notifications: an order event is older than what it caused.
  const ordered = [...page.events.filter((e) => !isNotification(e)), ...page.events.filter(isNotification).reverse()];
  for (const e of ordered) addEvent(e, false);
  if (reset) events.head = page.head;
  events.next = page.next;
  events.more.hidden = page.next === null;
  if (events.list.children.length === 0) events.list.append(emptyEvents(eventFilters()));
  eventsStatus();
  if (reset && events.follow.checked) startLive(page.head);
}

function startLive(after) {
  stopLive();
  const params = eventFilters();
  params.set('after', String(after));
  events.source = new EventSource(`/admin/api/events/live?${params}`);
  events.source.addEventListener('event', (message) => {
    const e = JSON.parse(message.data);
    events.list.querySelector(':scope > li.empty')?.remove();
    addEvent(e, true);
    events.head = Math.max(events.head, e.position);
    eventsStatus();
    // Newest first: the new row is at the top, brought into view unless a row is open for reading.
    const item = events.byPosition.get(e.position);
    if (!events.list.querySelector('.detail:not([hidden])')) item?.scrollIntoView({ block: 'nearest' });
  });
  events.source.onerror = () => eventsStatus(' · live connection lost, retrying…');
}

function stopLive() { if (events.source) { events.source.close(); events.source = null; } }

function startEvents() {
  events.form.addEventListener('submit', (e) => { e.preventDefault(); stopLive(); loadEvents(true); });
  events.more.addEventListener('click', () => loadEvents(false));
  events.follow.addEventListener('change', () => { if (events.follow.checked) loadEvents(true); else { stopLive(); eventsStatus(); } });
  events.expanded.addEventListener('change', () => expandAll(events.list, events.expanded.checked));
  $('notifications').addEventListener('change', (e) => document.body.classList.toggle('hide-notes', !e.target.checked));
  $('failures').addEventListener('change', (e) => document.body.classList.toggle('only-failures', e.target.checked));
  for (const [key, value] of new URLSearchParams(location.search)) {
    const input = events.form.elements.namedItem(key);
    if (input) input.value = value;
  }
  loadEvents(true);
}
