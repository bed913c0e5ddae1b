// checkout.js, second part: the public API of the real library, window.Checkout (the Checkout
// JavaScript library's reference): configure, showPaymentPage (the payer goes to the gateway's
// payment page), showEmbeddedPage (the page in an iframe of the merchant's element), the legacy
// library's showLightbox (the page in a dialog over the merchant's), saveFormFields and
// restoreFormFields. The page tells the library what happened by postMessage (embedded) or by the
// address it sends the payer back to (payment page).
var state = { config: null, frame: null, overlay: null, mode: null, resumed: false };

function invalid(explanation, field, validationType) {
  return { cause: 'INVALID_REQUEST', explanation: explanation, field: field, validationType: validationType, result: 'ERROR' };
}

function later(fn) { setTimeout(fn, 0); }

function whenParsed(fn) {
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', function () { later(fn); });
  else later(fn);
}

function configure(config) {
  var id = config && config.session && config.session.id;
  if (typeof id !== 'string' || id.trim() === '') {
    return later(function () { failed(invalid('Checkout.configure() needs session.id: the id Initiate Checkout answered', 'session.id', 'MISSING')); });
  }
  state.config = config;
  if (!state.resumed) {
    state.resumed = true;
    // Once the page is parsed: the callbacks it defines after configure() exist by then, and so do
    // the elements they write to (configure() is often called in the <head>).
    var result = returned();
    if (result) whenParsed(function () { resume(result); });
  }
}

/** The session configure() was given; an error callback when there is none. */
function sessionOf(what) {
  if (state.config) return state.config.session.id;
  later(function () { failed(invalid('Call Checkout.configure() before Checkout.' + what + '()', 'session.id', 'MISSING')); });
  return null;
}

/** What only the legacy configure() carried (merchant, order, interaction): the page shows it where the session has none. */
function legacyFields(config) {
  var picked = {};
  ['merchant', 'order', 'interaction', 'billing', 'customer'].forEach(function (name) {
    if (config[name] !== undefined) picked[name] = config[name];
  });
  if (picked.order && typeof picked.order.amount === 'function') {
    picked.order = Object.assign({}, picked.order, { amount: picked.order.amount() });
  }
  return Object.keys(picked).length ? picked : undefined;
}

/** The page's address: the session, and in the fragment (never sent to a server) where the payer came from. */
function pageUrl(path, mode) {
  var info = {
    mode: mode, origin: location.origin, page: location.href.split('#')[0], version: CONFIG.version,
    callbacks: ['complete', 'error', 'cancel', 'timeout'].filter(function (e) { return Boolean(ATTRIBUTES[e]); }),
    configure: legacyFields(state.config)
  };
  return ORIGIN + '/checkout/' + path + '/' + encodeURIComponent(state.config.session.id) + '?checkoutVersion=1.0.0#checkout='
    + encodeURIComponent(JSON.stringify(info));
}

function showPaymentPage() {
  var session = sessionOf('showPaymentPage');
  if (!session) return;
  var before = callbackOf('beforeRedirect');
  var data = before && before.fn ? before.fn.apply(before.self, []) : undefined;
  keep(KEYS.sessionId, session);
  keep(KEYS.embed, null);
  keep(KEYS.saved, data === undefined ? null : JSON.stringify(data));
  location.assign(pageUrl('pay', 'page'));
}

function mountFrame(host, mode) {
  closeFrame();
  var frame = document.createElement('iframe');
  frame.title = 'Payment';
  frame.className = 'gw-checkout-frame';
  frame.setAttribute('allow', 'payment');
  frame.src = pageUrl('entry', mode);
  var fs = frame.style;
  fs.display = 'block';
  fs.width = '100%';
  fs.minHeight = '420px';
  fs.border = '0';
  fs.background = 'transparent';
  host.appendChild(frame);
  state.frame = frame;
  state.mode = mode;
  return frame;
}

function closeFrame() {
  if (state.frame && state.frame.parentNode) state.frame.parentNode.removeChild(state.frame);
  if (state.overlay && state.overlay.parentNode) state.overlay.parentNode.removeChild(state.overlay);
  state.frame = null;
  state.overlay = null;
}

function showEmbeddedPage(selector, launcher) {
  if (!sessionOf('showEmbeddedPage')) return;
  var host = typeof selector === 'string' ? document.querySelector(selector) : selector;
  if (!host || !host.appendChild) return later(function () { failed(invalid('No element matches ' + selector, 'selector', 'INVALID')); });
  keep(KEYS.embed, typeof selector === 'string' ? selector : null);
  keep(KEYS.sessionId, null);
  host.textContent = '';
  mountFrame(host, 'embedded');
  if (typeof launcher === 'function') launcher();
}

/** The legacy library's dialog: the embedded page over the merchant's, closed by its button (a cancel). */
function showLightbox() {
  if (!sessionOf('showLightbox')) return;
  var overlay = document.createElement('div');
  overlay.className = 'gw-checkout-lightbox';
  overlay.setAttribute('role', 'dialog');
  overlay.setAttribute('aria-modal', 'true');
  overlay.style.cssText = 'position:fixed;inset:0;z-index:2147483000;background:rgba(15,23,42,.55);display:flex;align-items:flex-start;justify-content:center;overflow:auto;padding:24px 8px';
  var panel = document.createElement('div');
  panel.style.cssText = 'position:relative;width:100%;max-width:480px;background:#fff;border-radius:12px;overflow:hidden;box-shadow:0 12px 48px rgba(0,0,0,.3)';
  var close = document.createElement('button');
  close.type = 'button';
  close.setAttribute('aria-label', 'Close');
  close.textContent = '\u00d7';
  close.style.cssText = 'position:absolute;top:6px;right:8px;z-index:1;border:0;background:transparent;font-size:26px;line-height:1;cursor:pointer;color:#475467';
  close.addEventListener('click', function () { closeFrame(); fire('cancel', [], {}); });
  panel.appendChild(close);
  overlay.appendChild(panel);
  document.body.appendChild(overlay);
  mountFrame(panel, 'lightbox');
  state.overlay = overlay;
}

/** What the embedded page says: its height, and how the payment ended. */
function fromPage(m) {
  if (m.type === 'resize' && typeof m.height === 'number') {
    state.frame.style.height = Math.ceil(m.height) + 'px';
  } else if (m.type === 'complete') {
    if (state.mode === 'lightbox') closeFrame();
    if (!completed(m, CONFIG.version || m.apiVersion) && m.url) location.assign(m.url);
  } else if (m.type === 'cancel') {
    closeFrame();
    fire('cancel', [], {});
  } else if (m.type === 'timeout') {
    fire('timeout', [], {});
  } else if (m.type === 'redirect' && typeof m.url === 'string' && /^https?:\/\//i.test(m.url)) {
    // An address the merchant gave for it (timeoutUrl, redirectMerchantUrl): the payer goes there.
    if (state.mode === 'lightbox') closeFrame();
    location.assign(m.url);
  } else if (m.type === 'error') {
    failed(m.error || {});
  }
}

window.addEventListener('message', function (event) {
  var m = event.data;
  if (!state.frame || event.source !== state.frame.contentWindow || event.origin !== ORIGIN || !m || m.gw !== TAG) return;
  fromPage(m);
});

var api = {
  configure: configure,
  showPaymentPage: showPaymentPage,
  saveFormFields: saveFormFields,
  restoreFormFields: restoreFormFields
};
// The legacy library has the Lightbox; the new one the embedded page instead.
if (CONFIG.legacy) api.showLightbox = showLightbox;
else api.showEmbeddedPage = showEmbeddedPage;
window.Checkout = api;
