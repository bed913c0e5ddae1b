// session.js, first part (routes/hosted-session.ts serves it with session-api.js in one function
// of CONFIG: the path's version and merchant): the hosted fields' frames. Each merchant input a
// configure() names is replaced by an iframe of the gateway (class gw-proxy-<role>, as the real
// library's), in the input's place and with its size and look; the input stays in the page,
// hidden, and a change of its style or class is carried over. One hidden frame per scope
// (controller.html) sends the fields' values to the gateway. Messages between the page and the
// frames carry looks, events and validity, never a card value.
'use strict';
var TAG = 'tokengate-hosted';
var ROLES = ['number', 'expiryMonth', 'expiryYear', 'securityCode', 'nameOnCard'];
var TITLES = { number: 'Card Number', expiryMonth: 'Expiry Month', expiryYear: 'Expiry Year', securityCode: 'Security Code', nameOnCard: 'Cardholder Name' };
/** What the inner field takes of the merchant input's computed style. */
var LOOK = ['color', 'font-family', 'font-size', 'font-weight', 'font-style', 'letter-spacing', 'line-height', 'text-align', 'text-transform',
  'text-indent', 'background-color', 'box-shadow', 'padding-top', 'padding-right', 'padding-bottom', 'padding-left',
  'border-top-width', 'border-right-width', 'border-bottom-width', 'border-left-width', 'border-top-style', 'border-right-style',
  'border-bottom-style', 'border-left-style', 'border-top-color', 'border-right-color', 'border-bottom-color', 'border-left-color',
  'border-top-left-radius', 'border-top-right-radius', 'border-bottom-right-radius', 'border-bottom-left-radius'];
/** What the frame element takes of the input's box, so that the page's layout stays as it was. */
var BOX = ['margin-top', 'margin-right', 'margin-bottom', 'margin-left', 'vertical-align', 'flex-grow', 'flex-shrink', 'flex-basis',
  'align-self', 'min-width', 'max-width', 'grid-column-start', 'grid-column-end', 'grid-row-start', 'grid-row-end'];

/** The gateway's origin: where this script came from. */
function scriptSource() {
  if (document.currentScript && document.currentScript.src) return document.currentScript.src;
  var found = [].slice.call(document.scripts).map(function (s) { return s.src; }).filter(function (src) { return /\/form\/version\/[0-9]+\/merchant\/[^/]+\/session\.js/.test(src); });
  return found.length ? found[found.length - 1] : location.href;
}
var ORIGIN = new URL(scriptSource(), location.href).origin;
var BASE = ORIGIN + '/form/version/' + CONFIG.version + '/merchant/' + encodeURIComponent(CONFIG.merchant);

function randomId() {
  var bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return [].map.call(bytes, function (b) { return (b < 16 ? '0' : '') + b.toString(16); }).join('');
}

/** 'card.number' and 'number' name the same field. */
function bareRole(role) { return String(role).replace(/^card\./, ''); }

/** A callback of the page, called after the current turn (as an answer from the gateway would be). */
function later(fn, args) {
  if (typeof fn === 'function') setTimeout(function () { fn.apply(null, args); }, 0);
}

function post(frame, message) {
  message.gw = TAG;
  if (frame && frame.contentWindow) frame.contentWindow.postMessage(message, ORIGIN);
}

function lookOf(element) {
  var style = getComputedStyle(element), look = {};
  LOOK.forEach(function (prop) { look[prop] = style.getPropertyValue(prop); });
  return look;
}

/** The frame element in the input's place: its box and size; the input hidden after it. */
function place(frame, input) {
  var style = getComputedStyle(input), rect = input.getBoundingClientRect(), fs = frame.style;
  BOX.forEach(function (prop) { fs.setProperty(prop, style.getPropertyValue(prop)); });
  fs.display = style.display === 'inline' ? 'inline-block' : style.display;
  fs.height = rect.height + 'px';
  fs.border = '0';
  fs.padding = '0';
  fs.background = 'transparent';
  fs.overflow = 'hidden';
  input.style.display = 'none';
  // Hidden, the input's width is the one its rules give (100%, auto): a share of its container
  // keeps the page responsive; otherwise the width it had.
  var width = getComputedStyle(input).width;
  fs.width = /%$/.test(width) ? width : rect.width + 'px';
}

function initMessage(scope, field) {
  var input = field.input, message = { type: 'init', look: lookOf(input), layers: field.layers, ariaLabel: input.getAttribute('aria-label') || '' };
  var display = (scope.config.interaction && scope.config.interaction.displayControl) || {};
  message.formatCard = display.formatCard;
  message.invalidFieldCharacters = display.invalidFieldCharacters;
  if (input.tagName === 'SELECT') message.options = [].map.call(input.options, function (o) { return { value: o.value, text: o.text }; });
  else message.placeholder = input.getAttribute('placeholder') || '';
  return message;
}

function mountField(scope, role, selector) {
  var input = document.querySelector(selector);
  if (!input) return 'No element matches ' + selector + ' (fields.card.' + role + ')';
  var frame = document.createElement('iframe');
  frame.className = 'gw-proxy-' + role;
  frame.title = input.getAttribute('title') || TITLES[role];
  frame.setAttribute('scrolling', 'no');
  frame.setAttribute('allowtransparency', 'true');
  frame.src = BASE + '/role/' + role + '/inputField.do?channel=' + scope.channel;
  place(frame, input);
  input.parentNode.insertBefore(frame, input);
  var field = { role: role, selector: selector, input: input, frame: frame, layers: {}, loaded: false };
  scope.fields[role] = field;
  new MutationObserver(function () {
    if (input.style.display !== 'none') input.style.display = 'none';
    if (field.loaded) post(frame, { type: 'style', look: lookOf(input) });
  }).observe(input, { attributes: true, attributeFilter: ['class', 'style'] });
  return null;
}

function mountController(scope) {
  var frame = document.createElement('iframe');
  frame.className = 'gw-proxy-controller';
  frame.title = 'Payment session';
  frame.setAttribute('aria-hidden', 'true');
  frame.tabIndex = -1;
  frame.src = BASE + '/controller.do?channel=' + scope.channel;
  var fs = frame.style;
  fs.position = 'absolute';
  fs.width = '0';
  fs.height = '0';
  fs.border = '0';
  fs.visibility = 'hidden';
  document.body.appendChild(frame);
  return { frame: frame, loaded: false };
}

/** Every frame of the scope loaded and given its look: the scope is ready, `initialized` is told. */
function checkReady(scope) {
  if (scope.ready || !scope.controller.loaded) return;
  for (var role in scope.fields) if (!scope.fields[role].loaded) return;
  scope.ready = true;
  clearTimeout(scope.initTimer);
  later(scope.callbacks.initialized, [{ status: 'ok' }]);
}

/** The scope and field (none for the controller) a message came from. */
function senderOf(source) {
  for (var name in SCOPES) {
    var scope = SCOPES[name];
    if (scope.controller && scope.controller.frame.contentWindow === source) return { scope: scope, field: null };
    for (var role in scope.fields) if (scope.fields[role].frame.contentWindow === source) return { scope: scope, field: scope.fields[role] };
  }
  return null;
}

/** The page's handlers of an event (onFocus, onBlur...) that name the field. */
function dispatch(scope, event, field, extra) {
  (scope.handlers[event] || []).forEach(function (handler) {
    if (handler.roles.indexOf(field.role) < 0) return;
    var args = [field.selector, extra === undefined ? field.role : extra];
    try { handler.fn.apply(null, args); } catch (error) { setTimeout(function () { throw error; }, 0); }
  });
}

function fromField(scope, field, m) {
  if (m.type === 'loaded') {
    field.loaded = true;
    post(field.frame, initMessage(scope, field));
    checkReady(scope);
  } else if (m.type === 'event') {
    dispatch(scope, { focus: 'onFocus', blur: 'onBlur', change: 'onChange', mouseover: 'onMouseOver', mouseout: 'onMouseOut' }[m.name], field);
  } else if (m.type === 'validity') {
    field.validity = m.result;
    var asked = m.id && scope.validating[m.id];
    if (asked) asked(field, m.result);
    else dispatch(scope, 'onValidityChange', field, m.result);
  } else if (m.type === 'emptiness') {
    dispatch(scope, 'onEmptinessChange', field, { isEmpty: m.isEmpty === true });
  }
}

function fromController(scope, m) {
  if (m.type === 'loaded') {
    scope.controller.loaded = true;
    post(scope.controller.frame, { type: 'init' });
    checkReady(scope);
  } else if (m.type === 'result' && scope.updating[m.id]) {
    clearTimeout(scope.updating[m.id]);
    delete scope.updating[m.id];
    later(scope.callbacks.formSessionUpdate, [m.payload]);
  }
}

window.addEventListener('message', function (event) {
  var m = event.data;
  if (event.origin !== ORIGIN || !m || m.gw !== TAG) return;
  var sender = senderOf(event.source);
  if (!sender) return;
  if (sender.field) fromField(sender.scope, sender.field, m);
  else fromController(sender.scope, m);
});
