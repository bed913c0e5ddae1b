// The payment page, second part: the card entry. The page's readonly inputs are replaced by the
// hosted fields of session.js (the same frames as a merchant's Hosted Session page, served from
// this origin), configured with the checkout's session; on Pay, updateSessionFromForm('card')
// puts the card in the session (masked in the answer), and only then does the page ask the
// gateway to pay. The page never holds a card value.
'use strict';

const FIELDS = { number: '#card-number', expiryMonth: '#expiry-month', expiryYear: '#expiry-year', securityCode: '#security-code', nameOnCard: '#cardholder-name' };
const FIELD_STYLE = { borderColor: '#1d4ed8', boxShadow: 'inset 0 0 0 1px #1d4ed8', outline: 'none' };

/** session.js of the checkout's merchant and version, from this origin. */
function loadSessionScript(checkout) {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = `/form/version/${encodeURIComponent(checkout.apiVersion)}/merchant/${encodeURIComponent(checkout.merchant.id)}/session.js`;
    script.onload = () => (window.PaymentSession ? resolve(window.PaymentSession) : reject(new Error('the card fields did not load')));
    script.onerror = () => reject(new Error('the card fields could not be loaded'));
    document.head.appendChild(script);
  });
}

/** An error under a field, its border red (the hosted field takes the input's style). */
function fieldError(id, text, inputs) {
  $(id).textContent = text || '';
  for (const input of inputs) $(input).style.borderColor = text ? '#b42318' : '';
}

function clearFieldErrors() {
  fieldError('card-number-error', '', ['card-number']);
  fieldError('expiry-error', '', ['expiry-month', 'expiry-year', 'security-code']);
}

/** fields_in_error: which fields, in words. */
function showFieldErrors(errors) {
  if (errors.cardNumber) fieldError('card-number-error', errors.cardNumber === 'missing' ? 'Enter your card number.' : 'This card number is not valid.', ['card-number']);
  const expiry = errors.expiryMonth || errors.expiryYear;
  if (expiry) fieldError('expiry-error', 'Enter the expiry date as it appears on the card.', ['expiry-month', 'expiry-year']);
  if (errors.securityCode) fieldError('expiry-error', 'The security code is 3 or 4 digits.', ['security-code']);
  if (errors.nameOnCard) notice('error', 'Check the name on the card.', '');
}

/**
 * The hosted fields, configured: `ready()` once they have loaded, `updated(card)` after each Pay
 * with the card in the session, `failed(message)` when the fields could not take it.
 */
async function mountCardFields(sessionId, handlers) {
  const PaymentSession = await loadSessionScript(handlers.checkout);
  PaymentSession.configure({
    session: sessionId,
    fields: { card: FIELDS },
    frameEmbeddingMitigation: ['javascript'],
    callbacks: {
      initialized: (response) => (response.status === 'ok' ? handlers.ready() : handlers.failed(response.message || 'The card fields could not load.')),
      formSessionUpdate: (response) => {
        clearFieldErrors();
        if (response.status === 'ok') return handlers.updated(response.sourceOfFunds && response.sourceOfFunds.provided && response.sourceOfFunds.provided.card);
        if (response.status === 'fields_in_error') {
          showFieldErrors(response.errors || {});
          return handlers.invalid();
        }
        if (response.status === 'request_timeout') return handlers.expired();
        return handlers.failed((response.errors && response.errors.message) || 'The card could not be read.');
      },
    },
    interaction: { displayControl: { formatCard: 'EMBOSSED', invalidFieldCharacters: 'REJECT' } },
  });
  PaymentSession.setFocusStyle(Object.keys(FIELDS).map((role) => `card.${role}`), FIELD_STYLE);
  return {
    submit: () => PaymentSession.updateSessionFromForm('card'),
    focus: () => PaymentSession.setFocus('card.number'),
  };
}
