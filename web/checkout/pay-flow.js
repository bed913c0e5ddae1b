// The payment page, last part: the page's course. It reads the checkout (GET
// /checkout/api/{sessionId}), shows what its status calls for (the form while it is open, the
// receipt, a paid, declined, cancelled or expired checkout), and while the form is open counts
// down to the expiry and watches the status, so that a session that times out (on the gateway's
// clock, which a test may advance) ends here too.
'use strict';

/** How often an open page asks the gateway whether the checkout is still open. */
const WATCH_MS = 3000;

/**
 * A checkout no longer open: its panel. True when it is open. `live`: it ended while the payer was
 * here (a timeout is then told to the merchant; one found on opening the page is only shown).
 */
function settle(checkout, live) {
  const details = orderDetails(checkout, ctx.legacy);
  const last = checkout.lastError && checkout.lastError.explanation;
  if (checkout.status === 'OPEN') return true;
  if (checkout.status === 'EXPIRED') return timedOut(live) && false;
  finish();
  if (checkout.status === 'PAID') outcome('ok', 'This order has been paid', 'Nothing more to do: you can close this page.', details);
  else if (checkout.status === 'DECLINED') outcome('bad', 'Payment declined', `${last || 'The payment was declined.'} No more attempts are allowed on this page.`, details, backLink());
  else if (checkout.status === 'CANCELLED') outcome('warn', 'Payment cancelled', 'No payment was taken.', details, backLink());
  else failure({ explanation: `This checkout cannot be paid (${checkout.status}).` });
  return false;
}

/** The checkout read again: still open, or its end shown. */
async function refresh() {
  if (ctx.finished || ctx.paying) return;
  const answer = await call('GET', '').catch(() => null);
  if (!answer || ctx.finished || ctx.paying) return;
  if (answer.status === 200) settle(answer.body, true);
  else if (answer.status === 400 || answer.status === 404) timedOut();
}

function receipt(checkout) {
  finish();
  const details = orderDetails(checkout, ctx.legacy);
  if (checkout.status === 'PAID') outcome('ok', 'Payment successful', 'Thank you. You can keep this page as your receipt.', details);
  else outcome('bad', 'Payment not completed', (checkout.lastError && checkout.lastError.explanation) || 'No payment was taken.', details, backLink());
}

/** Pay: the card is in the session; the gateway pays (or asks for the bank's challenge). */
async function payNow(request = {}) {
  ctx.paying = true;
  let answer;
  try {
    answer = await call('POST', '/pay', Object.assign(ctx.mode === 'entry' ? { embedded: true } : {}, request));
  } catch {
    ctx.paying = false;
    busy(false);
    return notice('error', 'The payment could not be sent.', ' Check your connection and try again.');
  }
  ctx.paying = false;
  const body = answer.body;
  if (body.next === 'return' && typeof body.url === 'string') return returnToMerchant(body.url, body.redirect === true);
  if (body.next === 'challenge' && typeof body.html === 'string') return challenge(body.html);
  if (body.next === 'retry') return declined(body);
  busy(false);
  // A detail the payer can correct here (the billing address, the email): said, the form kept.
  const field = body.error && typeof body.error.field === 'string' ? body.error.field : '';
  if (/^(billing|customer)\./.test(field)) return notice('error', 'Check your details.', ` ${body.error.explanation || ''}`);
  // An error: the checkout may have ended meanwhile (timed out, paid in another tab).
  const now = await call('GET', '').catch(() => null);
  if (now && now.status === 200 && !settle(now.body, true)) return;
  failure(body.error || { explanation: `The gateway answered ${answer.status}.` });
}

/** The card in the session (or a stored one chosen): paid now, or first shown for confirmation (paymentConfirmation SHOW). */
function proceed(request, card) {
  const full = Object.assign({}, ctx.details || {}, request);
  const display = ctx.checkout.display || {};
  if (display.paymentConfirmation !== 'SHOW') return payNow(full);
  busy(false);
  confirmPayment(ctx.checkout, card, ctx.details || {}, { pay: () => payNow(full) });
}

/** The text of the card about to pay: the session's (masked) or the stored one chosen. */
function cardText(card, token) {
  const stored = token && (ctx.checkout.storedCards || []).find((c) => c.token === token);
  if (stored) return storedCardText(stored);
  return card && card.number ? `${card.brand || 'Card'} ${card.number}` : undefined;
}

/** The form: the hosted fields, the payer's details, the Pay and Cancel buttons, the countdown, the watch. */
async function openForm(checkout, serverNow) {
  show('loading', false);
  show('pay-form');
  // The countdown and Cancel sit below the form and the confirmation step alike.
  show('controls');
  drawStoredCards(checkout);
  drawDetails(checkout);
  const last = checkout.lastError;
  if (last) notice('error', 'Your payment was not completed.', ` ${last.explanation || ''} Try again or use another card.`);
  show('cancel-button', ctx.mode === 'pay' || ctx.info.mode === 'lightbox');
  const stopCount = countdown(checkout.expiresAt, Number.isFinite(Date.parse(checkout.now)) ? Date.parse(checkout.now) : serverNow, refresh);
  const watch = setInterval(refresh, WATCH_MS);
  ctx.stop = () => { stopCount(); clearInterval(watch); };
  $('pay-form').addEventListener('submit', (event) => {
    event.preventDefault();
    if ($('pay-button').disabled || ctx.finished || !ctx.fields) return;
    notice(null);
    // The details the merchant asks for first: nothing is sent while a required one is missing.
    const details = payerDetails(checkout);
    if (!details) return;
    ctx.details = details;
    busy(true);
    const token = chosenToken();
    if (token) proceed({ token }, cardText(null, token));
    else ctx.fields.submit();
  });
  $('cancel-button').addEventListener('click', cancel);
  ctx.fields = await mountCardFields(ctx.sessionId, {
    checkout,
    ready: () => busy(false),
    updated: (card) => proceed({}, cardText(card)),
    invalid: () => busy(false),
    expired: () => { busy(false); refresh(); },
    failed: (message) => { busy(false); notice('error', 'The card could not be read.', ` ${message}`); },
  }).catch((error) => failure({ explanation: error.message }));
}

/** The embedded page's height, told to checkout.js so that its frame fits. */
function followHeight() {
  document.body.classList.add('embedded');
  const sheet = document.querySelector('.sheet');
  new ResizeObserver(() => tellParent('resize', { height: sheet.offsetHeight + 2 })).observe(sheet);
}

async function start() {
  if (!PATH) return outcome('bad', 'Page not found', 'This address names no payment.');
  if (ctx.mode === 'entry') followHeight();
  ctx.info = merchantInfo();
  const answer = await call('GET', '').catch(() => null);
  if (!answer) return outcome('bad', 'The payment page could not load', 'Check your connection and reload the page.');
  if (answer.status !== 200) return failure(answer.body.error || { explanation: 'This payment session is not known, or has ended.' });
  const checkout = answer.body;
  ctx.checkout = checkout;
  // From version 67 configure() takes the session only: what else a page gives it is not used.
  ctx.legacy = Number(checkout.apiVersion) < 67 ? ctx.info.configure || null : null;
  drawSummary(checkout, ctx.legacy);
  drawOrderSummary(checkout.display);
  if (ctx.mode === 'receipt') return receipt(checkout);
  if (settle(checkout, false)) await openForm(checkout, answer.date);
}

start();
