// The history page: find a stream by any id, then its steps (steps.js) with the requests refused
// on it, the state as of a step, and the events of other streams it led to.
'use strict';

let current = null; // { stream, history, requests }
const history_ = window.history;

/** The journal's requests on this order or token: those that appended to it, and the refused ones naming it (none where there is no journal). */
async function requestsOf(history) {
  if (history.kind !== 'order' && history.kind !== 'token') return [];
  const params = new URLSearchParams({ stream: history.stream, limit: '200' });
  try { return (await api(`/admin/api/requests?${params}`)).requests || []; } catch { return []; }
}

async function showAsOf(step, index) {
  const history = current.history;
  let state = step.state;
  let note = `The state after step ${index + 1} (${step.type}, ${step.recordedAt}).`;
  if (step.stream === history.stream) {
    // As the server folds it up to that revision of the stream.
    const asOf = await api(`/admin/api/history?stream=${encodeURIComponent(history.stream)}&asOfRevision=${step.revision}`);
    state = asOf.state;
    note = `The state at revision ${step.revision} of ${history.stream} (${step.recordedAt}): ${asOf.steps.length} of ${history.steps.length} steps.`;
  }
  for (const node of document.querySelectorAll('.step.selected')) node.classList.remove('selected');
  $(`step-${index + 1}`).classList.add('selected');
  $('as-of-title').textContent = `As of step ${index + 1}: ${step.type}`;
  $('as-of-note').textContent = note;
  $('as-of-state').replaceChildren(afterLine(history.kind, state) || '', fieldTable(state, `The state as of step ${index + 1}`, new Set(step.changes.map((c) => c.path))));
  $('as-of').hidden = false;
  $('as-of').focus();
}

/** Events of other streams, one item per stream, but the notifications shown under their step. */
function renderRelated(related, append) {
  const list = $('related');
  if (!append) list.replaceChildren();
  list.querySelector(':scope > li.empty')?.remove();
  const underSteps = new Set([...document.querySelectorAll('#steps li.notification')].map((n) => n.dataset.stream));
  for (const e of related.events) {
    if (underSteps.has(e.stream)) continue;
    let group = [...list.querySelectorAll(':scope > li.group')].find((g) => g.dataset.stream === e.stream);
    if (!group) {
      const why = e.link === 'causation' && e.causedBy ? `caused by ${stepLabel(e.causedBy, current.history)}` : `same correlation id ${e.request.correlationId || ''}`;
      group = el('li', { class: 'group', 'data-stream': e.stream }, el('p', { class: 'group-head' }, historyLink(e.stream), ` · ${why}`), el('ol', { class: 'rows' }));
      list.append(group);
    }
    group.querySelector('ol').append(row({
      tone: e.outcome?.tone, at: e.recordedAt, summary: e.outcome?.summary || e.type, rule: e.outcome?.rule, meta: [el('span', {}, e.type)],
      detail: () => [requestLine(e.request), el('details', {}, el('summary', {}, 'Event data'), json(e.data))], attrs: { class: 'event', 'data-type': e.type },
    }));
  }
  if (list.children.length === 0) list.append(el('li', { class: 'empty' }, underSteps.size ? 'Only the notifications, shown under the steps that sent them.' : 'Nothing yet.'));
  const notes = underSteps.size ? ` ${underSteps.size} notification${underSteps.size === 1 ? ' is' : 's are'} shown under the step${underSteps.size === 1 ? '' : 's'} that sent ${underSteps.size === 1 ? 'it' : 'them'}, not here.` : '';
  $('related-note').textContent = `Events of other streams caused by these steps or sharing their correlation ids, found in the log after position ${related.scannedFrom} up to ${related.scannedTo}.${notes}`;
  $('related-more').hidden = related.next === null;
  $('related-more').dataset.after = String(related.next);
}

function summaryOf(history, requests) {
  const refused = requests.filter((r) => r.status >= 400).length;
  const failed = history.steps.filter((s) => s.outcome?.tone === 'failed').length;
  const summary = $('summary');
  const parts = [history.steps.length ? `${history.steps.length} steps` : 'Nothing recorded: every request on it was refused', refused ? el('span', { class: 'badge s4' }, `${refused} refused`) : null,
    failed ? el('span', { class: 'badge s4' }, `${failed} failed`) : null, ' · stream ', el('code', {}, history.stream), ' · ',
    el('a', { href: `/admin/timeline?stream=${encodeURIComponent(history.stream)}` }, 'in the timeline')];
  summary.replaceChildren(...parts.filter(Boolean));
  const after = afterLine(history.kind, history.state);
  if (after) summary.append(after);
}

/** The step a link names (#revision-N, #step-N): opened and brought into view. */
function openLinked() {
  const hash = location.hash.slice(1);
  const target = hash.startsWith('revision-') ? document.querySelector(`#steps li.step[data-revision="${CSS.escape(hash.slice(9))}"]`) : hash ? $(hash) : null;
  if (target?.open) { target.open(true); target.classList.add('selected'); target.scrollIntoView({ block: 'center' }); }
}

/**
 * An order or token with no event (every request on it refused): its stream's name says whose it
 * is, and the journal may hold the refused requests. Else undefined.
 */
async function refusedOnly(stream) {
  const match = /^(order|token)-([^:]+):(.+)$/.exec(stream);
  if (!match) return undefined;
  const [, kind, owner, id] = match;
  const history = {
    stream, kind, steps: [], state: null, related: { events: [], scannedFrom: 0, scannedTo: 0, next: null },
    title: kind === 'order' ? `Order ${id} of merchant ${decodeURIComponent(owner)}` : `Token ${id} (repository ${decodeURIComponent(owner)})`,
  };
  const requests = await requestsOf(history);
  return requests.length ? { history, requests } : undefined;
}

async function historyOf(stream) {
  try {
    const history = await api(`/admin/api/history?stream=${encodeURIComponent(stream)}`);
    return { history, requests: await requestsOf(history) };
  } catch (error) {
    const refused = error.status === 404 ? await refusedOnly(stream) : undefined;
    if (refused) return refused;
    throw error;
  }
}

async function openStream(stream, push) {
  say(`Loading ${stream}…`);
  try {
    const { history, requests } = await historyOf(stream);
    current = { stream, history, requests };
    if (push) history_.pushState(null, '', `/admin/history?stream=${encodeURIComponent(stream)}`);
    $('results').hidden = true;
    $('history').hidden = false;
    $('as-of').hidden = true;
    $('history-title').textContent = history.title;
    summaryOf(history, requests);
    renderSteps(history, requests);
    renderRelated(history.related, false);
    document.title = `tokengate · ${history.title}`;
    say('');
    $('history-title').focus();
    openLinked();
  } catch (error) { say(String(error.message || error), true); }
}

/** The journal's requests with this correlation id, linked: the refused ones recorded no event, so only the journal finds them. */
async function journalLine(q) {
  let requests;
  try { requests = (await api(`/admin/api/requests?${new URLSearchParams({ correlationId: q, limit: '1000' })}`)).requests || []; } catch { return null; }
  if (requests.length === 0) return null;
  const refused = requests.filter((r) => r.status >= 400).length;
  return el('p', { class: 'rule' }, `The request journal has ${requests.length} request${requests.length === 1 ? '' : 's'} with correlation id ${q}${refused ? `, ${refused} refused` : ''}: `,
    el('a', { href: requestHref(undefined, q) }, 'see them in the journal →'));
}

function showResults(title, results, journal) {
  $('history').hidden = true;
  $('results').hidden = false;
  $('results-title').textContent = title;
  $('results-journal').replaceChildren(journal || '');
  $('result-list').hidden = results.length === 0;
  // In the API's order: orders, tokens and sessions, then the notifications they sent; newest first within each.
  $('result-list').replaceChildren(...results.map((r) => el('li', {}, historyLink(r.stream), el('span', { class: 'rule' }, ` ${r.kind} · matched by ${r.matchedBy} · ${r.events} events · last ${r.lastRecordedAt}`))));
}

async function search(q, push) {
  say(`Searching ${q}…`);
  if (push) history_.pushState(null, '', `/admin/history?q=${encodeURIComponent(q)}`);
  try {
    const found = await api(`/admin/api/search?q=${encodeURIComponent(q)}`);
    if (found.results.length === 1) return openStream(found.results[0].stream, false);
    showResults('Found', found.results, found.results.some((r) => /correlation/.test(r.matchedBy)) ? await journalLine(q) : null);
    say(`${found.results.length} streams found for ${q}`);
  } catch (error) {
    const journal = error.status === 404 ? await journalLine(q) : null;
    if (!journal) { $('results').hidden = true; say(String(error.message || error), true); return; }
    showResults(`Nothing recorded for ${q}`, [], journal);
    say(`Nothing recorded for ${q}: no order, token, session or transaction has it`, true);
  }
}

function route() {
  const params = new URLSearchParams(location.search);
  if (params.get('stream')) openStream(params.get('stream'), false);
  else if (params.get('q')) { $('q').value = params.get('q'); search(params.get('q'), false); }
  else say('Search for an order id, token, session id, transaction id or correlation id, or open a row of the timeline.');
}

$('search').addEventListener('submit', (e) => { e.preventDefault(); const q = $('q').value.trim(); if (q) search(q, true); });
$('as-of-close').addEventListener('click', () => { $('as-of').hidden = true; for (const node of document.querySelectorAll('.step.selected')) node.classList.remove('selected'); });
$('related-more').addEventListener('click', async () => {
  const more = await api(`/admin/api/history?stream=${encodeURIComponent(current.stream)}&relatedAfter=${$('related-more').dataset.after}`);
  renderRelated(more.related, true);
});
$('expanded').addEventListener('change', (e) => expandAll($('steps'), e.target.checked));
$('notifications').addEventListener('change', (e) => document.body.classList.toggle('hide-notes', !e.target.checked));
window.addEventListener('popstate', route);
window.addEventListener('hashchange', openLinked);
route();
