// The payment page, third part: the steps after Pay and the ways out. The gateway's answers to
// /checkout/api/{sessionId}/pay: back to the merchant (return), the bank's 3-D Secure challenge
// in a frame of the page (challenge), a decline with another try (retry), an error; the cancel
// and the timeout. How the merchant hears of it: on the embedded page a message to checkout.js in
// the merchant's page (after a challenge too: the challenge ends in its frame, which tells this page); on the payment page the payer is sent back to the merchant's page with
// what happened in the fragment (#hostedCheckout=...) when it named a callback for it, else to the
// returnUrl (the receipt when there is none) or the cancelUrl.
'use strict';

const TAG = 'tokengate-checkout';
const PATH = /^\/checkout\/(pay|entry|receipt)\/([^/]+)$/.exec(location.pathname);
const ctx = {
  mode: PATH ? PATH[1] : null, sessionId: PATH ? decodeURIComponent(PATH[2]) : '', api: PATH ? `/checkout/api/${PATH[2]}` : '',
  info: {}, checkout: null, legacy: null, fields: null, challengeFrame: null, paying: false, finished: false, stop: () => {},
};

/** The checkout API: status, JSON body, and the gateway's time (its Date header). */
async function call(method, path, body) {
  const init = { method, cache: 'no-store', credentials: 'same-origin' };
  if (body) Object.assign(init, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const response = await fetch(ctx.api + path, init);
  const json = await response.json().catch(() => null);
  return { status: response.status, body: json || {}, date: Date.parse(response.headers.get('date') || '') };
}

/** What checkout.js put in the fragment (where the payer came from, the callbacks): kept in this tab for the page's later loads. */
function merchantInfo() {
  const key = `tokengate-checkout:${ctx.sessionId}`;
  const match = /(?:^#|&)checkout=([^&]*)/.exec(location.hash);
  try {
    if (match) sessionStorage.setItem(key, decodeURIComponent(match[1]));
    if (match) history.replaceState(null, '', location.pathname + location.search);
    const info = JSON.parse(sessionStorage.getItem(key) || '{}');
    return info && typeof info === 'object' ? info : {};
  } catch {
    return {};
  }
}

const merchantPage = () => (typeof ctx.info.page === 'string' && /^https?:\/\//i.test(ctx.info.page) ? ctx.info.page : null);
const named = (event) => Array.isArray(ctx.info.callbacks) && ctx.info.callbacks.includes(event);
const backLink = () => (merchantPage() ? { href: merchantPage(), text: 'Return to the merchant' } : null);

/** The merchant's page that framed this one (the embedded page). */
function parentOrigin() {
  if (location.ancestorOrigins && location.ancestorOrigins.length > 0) return location.ancestorOrigins[0];
  return typeof ctx.info.origin === 'string' ? ctx.info.origin : null;
}

function tellParent(type, details) {
  const origin = parentOrigin();
  if (window.parent === window || !origin) return false;
  window.parent.postMessage(Object.assign({ gw: TAG, type, apiVersion: ctx.checkout && ctx.checkout.apiVersion }, details), origin);
  return true;
}

/**
 * The merchant told of an event: the embedded page says it to checkout.js (complete and cancel
 * always, the others when the merchant has their callback); the payment page sends the payer back
 * to the merchant's page if it named the callback. False when nobody is told.
 */
function tellMerchant(event, details) {
  if (ctx.mode === 'entry') return (event === 'complete' || event === 'cancel' || named(event)) && tellParent(event, details);
  const page = merchantPage();
  if (!page || !named(event)) return false;
  const back = Object.assign({ event, sessionId: ctx.sessionId, apiVersion: ctx.checkout && ctx.checkout.apiVersion }, details);
  location.assign(`${page}#hostedCheckout=${encodeURIComponent(JSON.stringify(back))}`);
  return true;
}

function finish() {
  ctx.finished = true;
  ctx.stop();
}

/**
 * The payer sent to an address the merchant gave for it (timeoutUrl, redirectMerchantUrl, a
 * link's errorUrl): this window; from the embedded page (or the Lightbox), the merchant's page.
 */
function leaveTo(url) {
  if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) return;
  if (ctx.mode === 'entry') tellParent('redirect', { url });
  else location.assign(url);
}

/**
 * The payment is over: the payer goes back with resultIndicator and sessionVersion. `redirect`:
 * declined for good where the merchant gave an address for it (redirectMerchantUrl), which the
 * payer goes to whatever callbacks the merchant's page named.
 */
function returnToMerchant(url, redirect) {
  finish();
  const params = new URL(url, location.href).searchParams;
  const result = { resultIndicator: params.get('resultIndicator'), sessionVersion: params.get('sessionVersion'), url };
  outcome('ok', 'Returning you to the merchant', 'Please wait…', orderDetails(ctx.checkout, ctx.legacy));
  if (redirect) return leaveTo(url);
  if (!tellMerchant('complete', result)) location.assign(url);
}

function declined(answer) {
  busy(false);
  const left = Number(answer.attemptsLeft);
  const next = left > 0 ? ` ${left} ${left === 1 ? 'attempt' : 'attempts'} left.` : '';
  notice('error', 'Your payment was declined.', ` ${answer.explanation || 'Check the card details or try another card.'}${next}`);
  if (ctx.fields) ctx.fields.focus();
}

/** The bank's challenge (Authenticate Payer's HTML): its form posts the creq into the frame beside it. */
function challenge(html) {
  ctx.stop();
  ['pay-form', 'controls'].forEach((id) => show(id, false));
  notice(null);
  show('challenge');
  const host = $('challenge-host');
  host.innerHTML = html;
  const frame = host.querySelector('iframe');
  const form = host.querySelector('form');
  if (!frame || !form) return failure({ explanation: 'The 3-D Secure step could not start.' });
  frame.title = '3-D Secure: your bank';
  ctx.challengeFrame = frame;
  frame.addEventListener('load', () => challengeLoaded(frame));
  form.submit();
  tellParent('resize', { height: document.querySelector('.sheet').offsetHeight });
}

/**
 * The bank's page loaded in the frame. On the payment page, what follows the payer's answer (the
 * gateway's way back, then the merchant's return page, or this page again for another try) is the
 * whole window's: the bank page's form is sent to the top window. The embedded page is a frame of
 * the merchant's page, which must stay: there the way back stays in the challenge's frame and ends
 * on a page that tells this one (challengeOver).
 */
function challengeLoaded(frame) {
  if (ctx.mode === 'entry') return;
  let doc = null;
  try { doc = frame.contentDocument; } catch { doc = null; }
  if (!doc) return;
  for (const form of doc.querySelectorAll('form')) form.target = '_top';
  if (/^\/checkout\/pay\//.test(doc.location.pathname)) location.reload();
}

/**
 * The challenge is over on the embedded page: still open (the attempt declined, another allowed),
 * the form again with the reason; else the outcome, which a Pay on the finished checkout answers
 * with where it sends the payer: the merchant's page hears `complete`.
 */
async function challengeOver(event) {
  const data = event.data;
  if (event.origin !== location.origin || !ctx.challengeFrame || event.source !== ctx.challengeFrame.contentWindow) return;
  if (!data || data.gw !== TAG || data.type !== 'challenge-over' || ctx.finished) return;
  ctx.challengeFrame = null;
  const now = await call('GET', '').catch(() => null);
  if (now && now.status === 200 && now.body.status === 'OPEN') return location.reload();
  payNow();
}

window.addEventListener('message', challengeOver);

async function cancel() {
  if (ctx.finished) return;
  const answer = await call('POST', '/cancel', {}).catch(() => ({ body: {} }));
  finish();
  outcome('warn', 'Payment cancelled', 'No payment was taken.', orderDetails(ctx.checkout, ctx.legacy), backLink());
  if (tellMerchant('cancel', {})) return;
  if (typeof answer.body.url === 'string' && /^https?:\/\//i.test(answer.body.url)) location.assign(answer.body.url);
}

/**
 * The checkout timed out; `tell`: it happened while the payer was here, and the merchant's page
 * hears of it (its timeout callback). Otherwise, or without that callback, the payer goes to the
 * timeoutUrl (a payment link's errorUrl) when the merchant gave one; else this page says so.
 */
function timedOut(tell = true) {
  if (ctx.finished) return;
  finish();
  outcome('warn', 'Your payment session has timed out', 'No payment was taken. Return to the merchant to start again.', orderDetails(ctx.checkout, ctx.legacy), backLink());
  if (tell && tellMerchant('timeout', {})) return;
  if (ctx.checkout) leaveTo(ctx.checkout.timeoutUrl || ctx.checkout.errorUrl);
}

/** An error the payer cannot fix here: the session unknown, or the gateway refusing. */
function failure(error) {
  finish();
  const explanation = (error && error.explanation) || 'The payment could not be processed.';
  outcome('bad', 'This payment cannot go on', explanation, ctx.checkout ? orderDetails(ctx.checkout, ctx.legacy) : [], backLink());
  tellMerchant('error', { error: Object.assign({ cause: 'INVALID_REQUEST', result: 'ERROR' }, error || {}) });
}
