// The payment page, first part: what the payer sees, drawn from the checkout's state (GET
// /checkout/api/{sessionId}): the merchant, the order and its total, notices (a decline, a
// timeout warning), the countdown, and the outcome panels. No card value ever passes here: the
// card is in the hosted fields' frames, and the API answers it masked.
'use strict';

const $ = (id) => document.getElementById(id);
const show = (id, on = true) => { $(id).hidden = !on; };

/** 25.00 USD as the payer reads it: $25.00 (the code itself for a currency the browser does not know). */
function money(amount, currency) {
  const value = Number(amount);
  if (!Number.isFinite(value)) return '';
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).format(value);
  } catch {
    return `${value.toFixed(2)} ${currency || ''}`.trim();
  }
}

/** What configure() of a legacy page carried, for what the session lacks (the session's data comes first). */
function fallback(checkout, legacy) {
  const cfg = legacy || {};
  const order = Object.assign({}, cfg.order || {}, checkout.order || {});
  const legacyName = cfg.interaction && cfg.interaction.merchant && cfg.interaction.merchant.name;
  const merchant = checkout.merchant || {};
  // A session without interaction.merchant.name shows the merchant's id as its name.
  const own = merchant.name && merchant.name !== merchant.id ? merchant.name : undefined;
  const name = own || legacyName || merchant.id || 'Merchant';
  return { name, order };
}

/** The header and the order summary. */
function drawSummary(checkout, legacy) {
  const { name, order } = fallback(checkout, legacy);
  $('merchant-name').textContent = name;
  $('merchant-initial').textContent = name.trim().charAt(0).toUpperCase();
  document.title = `Pay ${name}`;
  $('order-description').textContent = order.description || 'Your order';
  $('order-id').textContent = order.id || '';
  $('order-amount').textContent = money(order.amount, order.currency);
  show('summary', order.amount !== undefined);
  const label = { VERIFY: 'Verify card', NONE: 'Save card' }[checkout.operation] || `Pay ${money(order.amount, order.currency)}`;
  $('pay-button').textContent = label;
  $('pay-button').dataset.label = label;
  show('threeds-note', Boolean(checkout.threeDS));
}

/** A notice above the form: `kind` error or warn; null clears it. */
function notice(kind, title, text) {
  const box = $('notice');
  box.className = `notice ${kind || ''}`;
  box.textContent = '';
  if (!kind) { box.hidden = true; return; }
  const strong = document.createElement('strong');
  strong.textContent = title;
  box.append(strong, document.createTextNode(text || ''));
  box.hidden = false;
}

/** The end of the road on this page: paid, declined for good, cancelled, timed out, an error. */
function outcome(kind, title, text, details, link) {
  ['loading', 'pay-form', 'confirm', 'controls', 'challenge'].forEach((id) => show(id, false));
  notice(null);
  const panel = $('outcome');
  panel.className = `outcome ${kind}`;
  $('outcome-icon').textContent = { ok: '✓', bad: '✕', warn: '!' }[kind] || '';
  $('outcome-title').textContent = title;
  $('outcome-text').textContent = text || '';
  const list = $('outcome-details');
  list.textContent = '';
  for (const [term, value] of details || []) {
    if (value === undefined || value === null || value === '') continue;
    const dt = document.createElement('dt');
    const dd = document.createElement('dd');
    dt.textContent = term;
    dd.textContent = value;
    list.append(dt, dd);
  }
  const anchor = $('outcome-link');
  anchor.hidden = !link;
  if (link) { anchor.href = link.href; anchor.textContent = link.text; }
  panel.hidden = false;
}

/** The order's lines of an outcome panel. */
function orderDetails(checkout, legacy) {
  const { name, order } = fallback(checkout, legacy);
  const card = checkout.card ? `${checkout.card.brand || 'Card'} ${checkout.card.number}` : undefined;
  return [['Merchant', name], ['Amount', money(order.amount, order.currency)], ['Card', card], ['Order reference', order.id]];
}

/** Pay button busy (a spinner, disabled) or ready. */
function busy(on) {
  const button = $('pay-button');
  button.disabled = on;
  button.classList.toggle('busy', on);
  button.textContent = on ? 'Processing' : button.dataset.label || 'Pay';
}

/**
 * The countdown to the session's expiry: the time left by the gateway's clock (its Date header
 * when the answer was read, or `now` if the answer gives it). `onEnd` when it reaches zero.
 */
function countdown(expiresAt, serverNow, onEnd) {
  const end = Date.parse(expiresAt);
  if (!Number.isFinite(end)) return () => {};
  const skew = (Number.isFinite(serverNow) ? serverNow : Date.now()) - Date.now();
  let ended = false;
  const tick = () => {
    const left = Math.max(0, Math.round((end - (Date.now() + skew)) / 1000));
    const minutes = Math.floor(left / 60);
    $('timer').textContent = `This page expires in ${minutes}:${String(left % 60).padStart(2, '0')}`;
    $('timer').classList.toggle('low', left <= 60);
    if (left === 0 && !ended) { ended = true; onEnd(); }
  };
  tick();
  const timer = setInterval(tick, 1000);
  return () => clearInterval(timer);
}
