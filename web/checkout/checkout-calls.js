// checkout.js, first part (routes/hosted-checkout-pages.ts serves it with checkout-api.js in one
// function of CONFIG: the path's version for the legacy library, null for checkout.min.js): the
// callbacks. The merchant names them in data-* attributes of the library's own <script> tag
// (data-complete, data-error, data-cancel, data-timeout, data-beforeRedirect, data-afterRedirect),
// each the name of a global function (dotted: Checkout.saveFormFields), looked up when it fires, or a
// URL the payer is sent to with the callback's arguments as query parameters. The payment page
// brings the payer back to the merchant's page with what happened in the fragment
// (#hostedCheckout=...), and the library fires the callbacks there.
var EVENTS = ['complete', 'error', 'cancel', 'timeout', 'beforeRedirect', 'afterRedirect'];
/** What the library keeps in the merchant page's sessionStorage (the real library's key names, and one of its own). */
var KEYS = { sessionId: 'HostedCheckout_sessionId', embed: 'HostedCheckout_embedContainer', saved: 'HostedCheckout_redirectData' };
var IDENTIFIER = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;
var TAG = 'tokengate-checkout';

/** The library's own script element: where the gateway is, and the callbacks' attributes. */
function ownScript() {
  if (document.currentScript && document.currentScript.src) return document.currentScript;
  var found = [].filter.call(document.scripts, function (s) {
    return /\/static\/checkout\/checkout\.min\.js|\/checkout\/version\/[0-9]+\/checkout\.js/.test(s.src);
  });
  return found.length ? found[found.length - 1] : null;
}
var SCRIPT = ownScript();
var ORIGIN = new URL(SCRIPT ? SCRIPT.src : location.href, location.href).origin;
var ATTRIBUTES = {};
EVENTS.forEach(function (name) {
  // HTML attribute names are case-insensitive: data-beforeRedirect is data-beforeredirect.
  var value = SCRIPT && SCRIPT.getAttribute('data-' + name.toLowerCase());
  if (value && value.trim()) ATTRIBUTES[name] = value.trim();
});

/** The callback an attribute names, as it is now: {fn, self}, {url}, or null. */
function callbackOf(event) {
  var value = ATTRIBUTES[event];
  if (!value) return null;
  if (!IDENTIFIER.test(value)) return { url: value };
  var self = null, target = window;
  value.split('.').forEach(function (part) {
    self = target;
    target = target === null || target === undefined ? undefined : target[part];
  });
  if (typeof target === 'function') return { fn: target, self: self };
  // The reference's example: `cancelCallback = "someURL"`, a global holding the URL.
  if (typeof target === 'string' && target) return { url: target };
  console.warn('Checkout: data-' + event + ' names ' + value + ', which is neither a function nor a URL');
  return null;
}

function withQuery(url, params) {
  var target = new URL(url, location.href);
  Object.keys(params || {}).forEach(function (name) {
    if (params[name] !== undefined && params[name] !== null) target.searchParams.append(name, String(params[name]));
  });
  return target.href;
}

/** Fires a callback: the function's value, or the payer sent to the URL; false when there is none. */
function fire(event, args, params) {
  var callback = callbackOf(event);
  if (!callback) return false;
  if (callback.url) {
    location.assign(withQuery(callback.url, params));
    return true;
  }
  return { value: callback.fn.apply(callback.self, args || []) };
}

/** complete's arguments: (resultIndicator, sessionVersion) up to version 62, one object from 63. */
function completeArgs(result, version) {
  if (Number(version) <= 62) return [result.resultIndicator, result.sessionVersion];
  return [{ resultIndicator: result.resultIndicator, sessionVersion: result.sessionVersion }];
}

function completed(result, version) {
  return fire('complete', completeArgs(result, version), { resultIndicator: result.resultIndicator, sessionVersion: result.sessionVersion });
}

function failed(error) {
  if (!fire('error', [error], error)) console.error('Checkout: ' + (error && error.explanation));
}

function storage() {
  try { return window.sessionStorage; } catch (e) { return null; }
}
function keep(key, value) {
  var s = storage();
  if (!s) return;
  if (value === undefined || value === null) s.removeItem(key);
  else s.setItem(key, value);
}
function kept(key) {
  var s = storage();
  return s ? s.getItem(key) : null;
}

/** What the payment page said on the way back (#hostedCheckout=...), taken out of the address. */
function returned() {
  var match = /(?:^#|&)hostedCheckout=([^&]*)/.exec(location.hash);
  if (!match) return null;
  history.replaceState(history.state, '', location.pathname + location.search);
  try { return JSON.parse(decodeURIComponent(match[1])); } catch (e) { return null; }
}

/** Back from the payment page: the event's callback, then afterRedirect with what beforeRedirect gave. */
function resume(result) {
  if (!result || result.sessionId !== kept(KEYS.sessionId)) return;
  var saved = kept(KEYS.saved);
  keep(KEYS.sessionId, null);
  keep(KEYS.saved, null);
  if (result.event === 'complete') completed(result, CONFIG.version || result.apiVersion);
  else if (result.event === 'cancel' || result.event === 'timeout') fire(result.event, [], {});
  else if (result.event === 'error') failed(result.error || {});
  var data;
  try { data = saved === null ? undefined : JSON.parse(saved); } catch (e) { data = undefined; }
  fire('afterRedirect', [data], {});
}

/** A value that could be a card number (13 to 19 digits): never kept by saveFormFields. */
function cardLike(value) {
  return /^[0-9 -]{13,23}$/.test(value) && /^[0-9]{13,19}$/.test(value.replace(/[ -]/g, ''));
}

function fieldKey(element) {
  if (element.id) return '#' + CSS.escape(element.id);
  if (!element.name) return null;
  var key = element.tagName.toLowerCase() + '[name="' + CSS.escape(element.name) + '"]';
  return element.type === 'radio' ? key + '[value="' + CSS.escape(element.value) + '"]' : key;
}

/** The page's form fields (by id or name) as they are: what beforeRedirect may keep for afterRedirect. */
function saveFormFields() {
  var saved = {};
  [].forEach.call(document.querySelectorAll('input, select, textarea'), function (element) {
    var key = fieldKey(element);
    if (!key || /^(password|file|hidden|submit|button|reset|image)$/.test(element.type) || cardLike(element.value)) return;
    saved[key] = element.type === 'checkbox' || element.type === 'radio' ? { checked: element.checked } : { value: element.value };
  });
  return saved;
}

function restoreFormFields(saved) {
  Object.keys(saved || {}).forEach(function (key) {
    var element = null;
    try { element = document.querySelector(key); } catch (e) { element = null; }
    if (!element || !saved[key]) return;
    if ('checked' in saved[key]) element.checked = Boolean(saved[key].checked);
    else element.value = String(saved[key].value);
  });
}
