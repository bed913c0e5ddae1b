// session.js, second part: the public API of the real library, window.PaymentSession (the Session
// JavaScript library's reference: configure, updateSessionFromForm, validate, setFocus, the
// styling functions and the event callbacks, each with the optional scope of "Multiple Hosted
// Sessions").
/** How long the frames may take to load, and an update to be answered (the controller gives up earlier). */
var INIT_TIMEOUT_MS = 30000, UPDATE_TIMEOUT_MS = 40000, VALIDATE_TIMEOUT_MS = 5000;
var MITIGATIONS = ['javascript', 'x-frame-options', 'csp'];
var SCOPES = {};

function Scope(name) {
  this.name = name;
  this.channel = randomId();
  this.fields = {};
  this.handlers = {};
  this.updating = {};
  this.validating = {};
  this.callbacks = {};
  this.config = {};
  this.controller = null;
  this.ready = false;
}

/** The scope a call names; without one, the only scope there is (or the default). */
function scopeOf(name) {
  if (name !== undefined && name !== null) return SCOPES['s:' + name];
  var names = Object.keys(SCOPES);
  return SCOPES['s:'] || (names.length === 1 ? SCOPES[names[0]] : undefined);
}

function configProblem(config) {
  if (!config || typeof config !== 'object') return 'configure() needs a configuration object';
  if (typeof config.session !== 'string' || !/^SESSION[0-9A-Za-z]{1,40}$/.test(config.session)) return 'configuration.session must be the id of a session created with Create Session';
  var mitigation = config.frameEmbeddingMitigation;
  if (!Array.isArray(mitigation) || mitigation.length === 0 || mitigation.some(function (m) { return MITIGATIONS.indexOf(m) < 0; })) {
    return 'configuration.frameEmbeddingMitigation must list one or more of ' + MITIGATIONS.join(', ');
  }
  var card = config.fields && config.fields.card;
  if (!card || !ROLES.some(function (role) { return card[role]; })) return 'configuration.fields.card must name at least one field';
  if (Boolean(card.expiryMonth) !== Boolean(card.expiryYear)) return 'configuration.fields.card: expiryMonth and expiryYear go together';
  return null;
}

function configure(config, scopeName) {
  var key = 's:' + (scopeName === undefined || scopeName === null ? '' : scopeName);
  var scope = SCOPES[key] || (SCOPES[key] = new Scope(scopeName));
  scope.config = config || {};
  scope.callbacks = (config && config.callbacks) || {};
  var problem = configProblem(config);
  if (problem) return later(scope.callbacks.initialized, [{ status: 'system_error', message: problem }]);
  scope.session = config.session;
  scope.ready = false;
  if (!scope.controller) scope.controller = mountController(scope);
  var card = config.fields.card;
  for (var i = 0; i < ROLES.length && !problem; i++) {
    if (card[ROLES[i]] && !scope.fields[ROLES[i]]) problem = mountField(scope, ROLES[i], card[ROLES[i]]);
  }
  if (problem) return later(scope.callbacks.initialized, [{ status: 'system_error', message: problem }]);
  clearTimeout(scope.initTimer);
  scope.initTimer = setTimeout(function () {
    if (!scope.ready) later(scope.callbacks.initialized, [{ status: 'request_timeout', message: 'The hosted fields did not load from the gateway' }]);
  }, INIT_TIMEOUT_MS);
  // A second configure() of a scope: its frames are there already, given the new configuration.
  for (var role in scope.fields) if (scope.fields[role].loaded) post(scope.fields[role].frame, initMessage(scope, scope.fields[role]));
  checkReady(scope);
}

function answerUpdate(scope, payload) {
  later(scope.callbacks.formSessionUpdate, [payload]);
}

function updateSessionFromForm(paymentType, localBrand, scopeName) {
  var scope = scopeOf(scopeName);
  if (!scope) throw new Error('PaymentSession.updateSessionFromForm: call PaymentSession.configure() first');
  var failed = function (message) { answerUpdate(scope, { status: 'system_error', session: { id: scope.session || '' }, errors: { message: message }, version: CONFIG.version }); };
  if (paymentType !== 'card') return failed("Payment type '" + paymentType + "' is not supported by the hosted fields: use 'card'");
  if (!scope.ready) return failed('The hosted fields are not ready yet: wait for the initialized callback');
  var id = randomId();
  scope.updating[id] = setTimeout(function () {
    delete scope.updating[id];
    answerUpdate(scope, { status: 'request_timeout', session: { id: scope.session }, errors: { message: 'The gateway did not answer in time' }, version: CONFIG.version });
  }, UPDATE_TIMEOUT_MS);
  post(scope.controller.frame, { type: 'update', id: id, session: scope.session, roles: Object.keys(scope.fields) });
}

function validate(paymentType, callback, scopeName) {
  var scope = scopeOf(scopeName);
  if (!scope || paymentType !== 'card') return later(callback, [{}]);
  var id = randomId(), results = {}, left = Object.keys(scope.fields).length;
  var finish = function () {
    delete scope.validating[id];
    clearTimeout(timer);
    var card = { isValid: true };
    for (var role in scope.fields) {
      card[role] = results[role] || scope.fields[role].validity || { isValid: false, isIncomplete: false, hasError: true };
      card.isValid = card.isValid && card[role].isValid;
    }
    later(callback, [{ card: card }]);
  };
  var timer = setTimeout(finish, VALIDATE_TIMEOUT_MS);
  scope.validating[id] = function (field, result) {
    results[field.role] = result;
    if (--left === 0) finish();
  };
  for (var role in scope.fields) post(scope.fields[role].frame, { type: 'validate', id: id });
  if (left === 0) finish();
}

function setFocus(role, scopeName) {
  var scope = scopeOf(scopeName), field = scope && scope.fields[bareRole(role)];
  if (!field) return;
  field.frame.focus();
  post(field.frame, { type: 'focus' });
}

/** setFocusStyle and the others: the styles kept for the field (a frame that loads later gets them) and sent. */
function styler(layer) {
  return function (roles, styles, scopeName) {
    var scope = scopeOf(scopeName);
    if (!scope) return;
    [].concat(roles || []).map(bareRole).forEach(function (role) {
      var field = scope.fields[role];
      if (!field) return;
      field.layers[layer] = styles || {};
      if (field.loaded) post(field.frame, { type: 'layer', layer: layer, style: styles || {} });
    });
  };
}

/** onFocus and the other event callbacks: (roles, callback, scope). */
function listener(event) {
  return function (roles, fn, scopeName) {
    var scope = scopeOf(scopeName);
    if (!scope || typeof fn !== 'function') return;
    (scope.handlers[event] = scope.handlers[event] || []).push({ roles: [].concat(roles || []).map(bareRole), fn: fn });
  };
}

window.PaymentSession = {
  configure: configure,
  updateSessionFromForm: updateSessionFromForm,
  validate: validate,
  setFocus: setFocus,
  setFocusStyle: styler('focus'),
  setHoverStyle: styler('hover'),
  setPlaceholderStyle: styler('placeholder'),
  setPlaceholderShownStyle: styler('shown'),
  onFocus: listener('onFocus'),
  onBlur: listener('onBlur'),
  onChange: listener('onChange'),
  onMouseOver: listener('onMouseOver'),
  onMouseOut: listener('onMouseOut'),
  onValidityChange: listener('onValidityChange'),
  onEmptinessChange: listener('onEmptinessChange')
};
