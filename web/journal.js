// The timeline's requests view: the request journal (GET /admin/api/requests), every API request
// accepted or refused, newest first, searchable by status, operation, path, correlation id and
// merchant; a refused one in red with the rule that refused it; opened: its masked request and
// answer, and the events it caused, each a link to its history.
'use strict';

const journal = { list: $('requests'), form: $('request-filters'), follow: $('requests-follow'), expanded: $('requests-expanded'), shown: new Map(), timer: null };

function journalFilters() {
  const params = new URLSearchParams();
  for (const [key, value] of new FormData(journal.form)) if (typeof value === 'string' && value.trim()) params.set(key, value.trim());
  return params;
}

const refused = (entry) => entry.status >= 400;

/**
 * A repeat refused for a different body (the gateway does not say how): the request that recorded
 * its transaction, linked, and each field whose masked value differs, "order.amount: 1.00 → 2.00".
 */
function differsNote(entry) {
  const from = entry.differsFrom;
  if (!from) return null;
  const differences = entry.differences;
  const lines = (differences || []).map((d) => el('li', {}, el('code', {}, d.path), ': ', text(d.before), ' → ', text(d.after)));
  const masked = differences && !differences.length ? ': nothing the journal shows differs (a value it keeps masked, such as a card number, does)' : ':';
  return el('div', { class: 'differs', role: 'note' }, 'Differs from ', el('a', { href: requestHref(from.id, from.correlationId), class: 'history' }, 'the request that recorded it'),
    ` (${from.id})`, differences ? masked : '', lines.length ? el('ul', {}, lines) : null,
    entry.differencesLeftOut ? el('p', {}, `and ${entry.differencesLeftOut} more`) : null);
}

function journalDetail(entry) {
  const refusal = refusalOf(entry);
  const parts = [];
  if (refused(entry) && refusal) {
    parts.push(el('div', { class: 'refusal', role: 'note' }, `Refused (${entry.status})`, refusal.field ? [' on ', el('strong', {}, refusal.field)] : null, `: ${refusal.explanation || ''}`));
  }
  const differs = differsNote(entry);
  if (differs) parts.push(differs);
  parts.push(el('div', { class: 'rule' }, el('code', {}, `${entry.method} ${entry.path}`), ` · ${entry.operation || ''} · ${entry.durationMs ?? '?'} ms · request `,
    el('code', {}, entry.id), entry.correlationId ? [' · correlation ', el('code', {}, entry.correlationId)] : null, entry.merchant ? ` · merchant ${entry.merchant}` : ''));
  const caused = entry.events || [];
  parts.push(el('h4', {}, caused.length ? 'Events it caused' : 'Events it caused: none (nothing recorded)'));
  if (caused.length) parts.push(el('div', { class: 'links' }, caused.map((e) => historyLink(e.stream, `${e.type} · ${e.stream} @ ${e.revision}`, e.revision))));
  parts.push(el('h4', {}, 'Request body'), json(bodyOf(entry.request) ?? '(none)'), el('h4', {}, 'Answer'), json(bodyOf(entry.response) ?? '(none)'));
  return parts;
}

/** The history a request is about: its order's, else its token's. */
function subjectLink(entry) {
  if (entry.order && entry.merchant) return el('a', { href: `/admin/history?stream=${encodeURIComponent(`order-${entry.merchant}:${entry.order}`)}`, class: 'history' }, `Order ${entry.order} →`);
  if (entry.token) return el('a', { href: `/admin/history?q=${encodeURIComponent(entry.token)}`, class: 'history' }, `Token ${entry.token} →`);
  return null;
}

/** An accepted payment's outcome as its answer gives it: " → DECLINED", and its tone. */
function answered(entry) {
  const answer = bodyOf(entry.response);
  const code = answer?.response?.gatewayCode;
  if (!code) return { words: '', tone: 'ok' };
  const result = answer.result;
  return { words: ` → ${code}`, tone: result === 'FAILURE' ? 'failed' : result === 'UNKNOWN' || result === 'PENDING' ? 'pending' : 'ok' };
}

function requestRow(entry, fresh) {
  const refusal = refusalOf(entry);
  const bad = refused(entry);
  const outcome = bad ? { words: ' refused', tone: 'failed' } : answered(entry);
  const item = row({
    tone: outcome.tone, at: entry.at,
    summary: [statusBadge(entry.status), ' ', `${requestTitle(entry)}${outcome.words}`],
    rule: bad && refusal ? `${refusal.field ? `${refusal.field}: ` : ''}${refusal.explanation || ''}` : undefined, ruleWord: 'refused by',
    meta: [pathChip(entry.method, entry.path), entry.merchant ? el('span', {}, entry.merchant) : null,
      el('span', {}, `${entry.durationMs ?? '?'} ms`), subjectLink(entry)],
    detail: () => journalDetail(entry),
    attrs: { class: `request${bad ? ' refused' : ''}${fresh ? ' fresh' : ''}`, 'data-status': String(entry.status), 'data-id': entry.id },
  });
  if (journal.expanded.checked) item.open(true);
  return item;
}

async function loadRequests(reset) {
  if (reset) { journal.list.replaceChildren(); journal.shown.clear(); }
  const params = journalFilters();
  params.set('limit', '200');
  let answer;
  try { answer = await api(`/admin/api/requests?${params}`); } catch (error) {
    say(error.status === 404 ? 'The request journal is not available on this gateway.' : `Error: ${error.message}`, true);
    return;
  }
  // Newest first: the ones not shown yet go above (a poll) or in order (a new search).
  const fresh = answer.requests.filter((r) => !journal.shown.has(r.id));
  const rows = fresh.map((entry) => { const item = requestRow(entry, !reset); journal.shown.set(entry.id, item); return item; });
  journal.list.prepend(...rows);
  if (journal.shown.size === 0) journal.list.replaceChildren(el('li', { class: 'empty' }, 'No request matches.'));
  else journal.list.querySelector(':scope > li.empty')?.remove();
  const refusedCount = [...journal.shown.values()].filter((item) => item.classList.contains('refused')).length;
  say(`${journal.shown.size} request${journal.shown.size === 1 ? '' : 's'} · ${refusedCount} refused · newest first${journal.follow.checked ? ' · following live' : ''}`);
  const open = new URLSearchParams(location.search).get('open');
  if (reset && open && journal.shown.has(open)) { journal.shown.get(open).open(true); journal.shown.get(open).scrollIntoView({ block: 'center' }); }
  if (reset) notKept(open && !journal.shown.has(open) ? open : null);
}

/** A request asked for (?open=, a link from an event) that the journal no longer has: said, and why, above the list. */
function notKept(id) {
  document.getElementById('not-kept')?.remove();
  if (id) journal.list.before(el('p', { id: 'not-kept', class: 'rule not-kept', role: 'note' }, 'Request ', el('code', {}, id), ` is not in the journal: ${NOT_KEPT}.`));
}

/** Following: the journal asked again every two seconds while the switch is on. */
function pollRequests() {
  clearInterval(journal.timer);
  if (journal.follow.checked) journal.timer = setInterval(() => loadRequests(false), 2000);
}

function startJournal() {
  journal.form.addEventListener('submit', (e) => { e.preventDefault(); loadRequests(true); });
  journal.follow.addEventListener('change', pollRequests);
  journal.expanded.addEventListener('change', () => expandAll(journal.list, journal.expanded.checked));
  for (const [key, value] of new URLSearchParams(location.search)) {
    const input = journal.form.elements.namedItem(key);
    if (input) input.value = value;
  }
  loadRequests(true);
  pollRequests();
}

/** The view the address names: ?view=requests, else the events. */
function startTimeline() {
  const requests = new URLSearchParams(location.search).get('view') === 'requests';
  $('events-view').hidden = requests;
  $('requests-view').hidden = !requests;
  $(requests ? 'nav-requests' : 'nav-events').setAttribute('aria-current', 'page');
  // common.js fitted the placeholders while both views were hidden (nothing to measure): now the shown one's.
  fitPlaceholders();
  // One status line, under the active view's filters.
  $(requests ? 'request-filters' : 'filters').after($('status'));
  document.title = `tokengate · ${requests ? 'requests' : 'events'}`;
  if (requests) startJournal(); else startEvents();
}
startTimeline();
