// The history page's rows: one line per step in the gateway's words (the API's outcome), opened
// for the request behind it, what it caused, the state after it and what changed; the
// notifications a step sent, one line each under it; and the requests the gateway refused on
// this order or token (the request journal), in red between the steps, with their body and the
// rule that refused them.
'use strict';

function stepLabel(ref, history) {
  const index = history.steps.findIndex((s) => s.id === ref.id);
  return index >= 0 ? `step ${index + 1} (${ref.type})` : `${ref.type} in ${ref.stream} @ ${ref.revision}`;
}

/** A line saying the order's status and totals (orders), or a token's status. */
function afterLine(kind, state) {
  if (!state || typeof state !== 'object') return null;
  if (kind === 'order') {
    return el('p', { class: 'after' }, 'After: ', el('strong', {}, state.status), ` · authorized ${state.totalAuthorizedAmount} · captured ${state.totalCapturedAmount} · refunded ${state.totalRefundedAmount}`);
  }
  if (kind === 'token' && state.status) return el('p', { class: 'after' }, 'After: token ', el('strong', {}, state.status), state.usage?.lastUsed ? ` · last used ${state.usage.lastUsed}` : '');
  return null;
}

function changesTable(changes) {
  if (changes.length === 0) return el('p', { class: 'rule' }, 'Nothing changed in the state.');
  // A first step has no "before": its fields alone.
  const fresh = changes.every((c) => !('before' in c));
  const body = el('tbody', {}, changes.map((c) => el('tr', {}, el('td', {}, c.path), fresh ? null : el('td', { class: 'before' }, text(c.before)), el('td', { class: 'now' }, text(c.after)))));
  const head = fresh ? ['new', 'value'] : ['changed', 'before', 'after'];
  return el('table', { class: 'fields', 'aria-label': 'What changed at this step' }, el('thead', {}, el('tr', {}, head.map((h) => el('th', { scope: 'col' }, h)))), body);
}

function requestLine(request) {
  const parts = [];
  if (request.method || request.path) parts.push(el('code', {}, `${request.method || ''} ${request.path || ''}`.trim()));
  if (request.reactor) parts.push(`the ${request.reactor} reactor`);
  if (request.requestId) parts.push(' request ', el('code', {}, request.requestId));
  // The correlation id is the request id unless the client sent X-Correlation-Id.
  if (request.correlationId && request.correlationId !== request.requestId) parts.push(' correlation ', el('code', {}, request.correlationId));
  if (request.merchantId) parts.push(' merchant ', el('code', {}, request.merchantId));
  return el('p', { class: 'request rule' }, 'Caused by ', ...parts);
}

function causedLine(step, history) {
  if (step.caused.length === 0) return null;
  // Steps of this history by number; the events of another stream together, under its name.
  const links = [];
  const others = new Map();
  for (const c of step.caused) {
    const at = history.steps.findIndex((s) => s.id === c.id);
    if (at >= 0) links.push(el('a', { href: `#step-${at + 1}` }, stepLabel(c, history)));
    else others.set(c.stream, [...(others.get(c.stream) || []), c.type]);
  }
  for (const [stream, types] of others) links.push(historyLink(stream, `${stream}: ${types.join(' → ')}`));
  return el('p', { class: 'causes rule' }, 'Caused later: ', ...links.flatMap((link, i) => (i ? [', ', link] : [link])));
}

/** The masked request and answer of the step's request, from the journal, when it has it; else why not (a request of the API that appended to this stream: the journal is asked for all of those). */
function exchange(entry, step, history) {
  if (!entry) {
    const missing = step && step.request.requestId && !step.request.reactor && step.stream === history.stream && (history.kind === 'order' || history.kind === 'token');
    return missing ? [el('p', { class: 'rule not-kept' }, `No request body or answer: ${NOT_KEPT}.`)] : [];
  }
  return [el('h4', {}, 'Request body'), json(bodyOf(entry.request) ?? '(none)'), el('h4', {}, `Answer ${entry.status}`), json(bodyOf(entry.response) ?? '(none)'),
    el('div', { class: 'links' }, el('a', { href: requestHref(entry.id, entry.correlationId), class: 'request' }, 'In the request journal →'))];
}

function stepDetail(step, index, history, entry) {
  const parts = [requestLine(step.request)];
  if (step.causedBy) {
    const at = history.steps.findIndex((s) => s.id === step.causedBy.id);
    parts.push(el('p', { class: 'causes rule' }, 'Follows ', at >= 0 ? el('a', { href: `#step-${at + 1}` }, stepLabel(step.causedBy, history)) : historyLink(step.causedBy.stream, stepLabel(step.causedBy, history))));
  }
  parts.push(causedLine(step, history), afterLine(history.kind, step.state), el('h4', {}, 'What changed'), changesTable(step.changes), ...exchange(entry, step, history));
  const asOf = el('button', { type: 'button', class: 'btn secondary small', 'aria-label': `State as of step ${index + 1} (${step.type})`, onclick: () => showAsOf(step, index) }, 'State as of this step');
  parts.push(el('div', { class: 'links' }, asOf), el('details', {}, el('summary', {}, 'Event data'), json(step.data)));
  return parts.filter(Boolean);
}

function stepRow(step, index, history, entry) {
  const ownStream = step.stream === history.stream;
  const by = step.request.reactor ? el('span', { class: 'chip' }, `${step.request.reactor} reactor`) : step.request.method ? pathChip(step.request.method, step.request.path) : null;
  return row({
    tone: step.outcome?.tone, at: step.recordedAt, summary: [el('span', { class: 'chip' }, `#${index + 1}`), ' ', step.outcome?.summary || step.type], rule: step.outcome?.rule,
    meta: [by, ownStream ? null : historyLink(step.stream, step.stream.split('-')[0], step.revision), el('span', {}, step.type)],
    detail: () => stepDetail(step, index, history, entry),
    attrs: { class: `step${step.request.reactor ? ' reactor' : ''}${ownStream ? '' : ' other-stream'}`, id: `step-${index + 1}`, 'data-type': step.type, 'data-revision': ownStream ? String(step.revision) : undefined },
  });
}

/** A request the gateway refused: red, its title, the rule that refused it; opened, its body and answer. */
function refusedRow(entry) {
  const refusal = refusalOf(entry) || {};
  const detail = () => [
    el('div', { class: 'refusal', role: 'note' }, `Refused (${entry.status})`, refusal.field ? [' on ', el('strong', {}, refusal.field)] : null, `: ${refusal.explanation || ''}`),
    el('p', { class: 'rule' }, el('code', {}, `${entry.method} ${entry.path}`), ' request ', el('code', {}, entry.id), entry.correlationId && entry.correlationId !== entry.id ? [' correlation ', el('code', {}, entry.correlationId)] : null,
      ' · nothing was recorded'),
    ...exchange(entry),
  ];
  return row({
    tone: 'failed', at: entry.at, summary: [statusBadge(entry.status), ' ', `${requestTitle(entry)} refused`],
    rule: `${refusal.field ? `${refusal.field}: ` : ''}${refusal.explanation || ''}`, ruleWord: 'refused by',
    meta: [pathChip(entry.method, entry.path), el('span', {}, 'refused request')],
    detail, attrs: { class: 'step refused', 'data-status': String(entry.status), 'data-id': entry.id },
  });
}

/** The notifications a step sent (related events it caused), one line each under it. */
function notificationRows(related, stepId) {
  const groups = new Map();
  for (const e of related.events) {
    if (e.link !== 'causation' || e.causedBy?.id !== stepId || !e.stream.startsWith('notification-')) continue;
    groups.set(e.stream, [...(groups.get(e.stream) || []), e]);
  }
  if (groups.size === 0) return null;
  return el('ul', { class: 'notes', 'aria-label': 'Notifications it sent' }, [...groups].map(([stream, list]) => {
    const latest = list.at(-1);
    return row({
      tone: latest.outcome?.tone, at: latest.recordedAt, summary: latest.outcome?.summary || latest.type,
      meta: [el('span', {}, list.map((e) => e.type.replace('Notification', '')).join(' → ')), historyLink(stream, 'History →')],
      detail: () => list.map((e) => el('p', { class: 'rule' }, when(e.recordedAt), ' ', e.outcome?.summary || e.type)),
      attrs: { class: 'notification', 'data-stream': stream, 'data-type': latest.type },
    });
  }));
}

/** Steps and refused requests together in time order, each step with its notifications. */
function renderSteps(history, requests) {
  const byEvent = new Map();
  for (const entry of requests) for (const e of entry.events || []) byEvent.set(`${e.stream}@${e.revision}`, entry);
  const refused = requests.filter((entry) => entry.status >= 400).sort((a, b) => (a.at < b.at ? -1 : 1));
  const items = [];
  history.steps.forEach((step, i) => {
    while (refused.length && refused[0].at < step.recordedAt) items.push(refusedRow(refused.shift()));
    const item = stepRow(step, i, history, byEvent.get(`${step.stream}@${step.revision}`));
    const notes = notificationRows(history.related, step.id);
    if (notes) item.append(notes);
    items.push(item);
  });
  items.push(...refused.map(refusedRow));
  $('steps').replaceChildren(...items);
  if ($('expanded').checked) expandAll($('steps'), true);
}
