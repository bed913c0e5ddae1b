// The payment page, the stored cards: a checkout whose merchant named the payer's stored cards
// (Initiate Checkout's interaction.tokens) offers them above the card form, as choices beside "a
// new card". The gateway gives each masked (number, brand, expiry) with its token; paying with one
// sends the token, and the card fields are not used.
'use strict';

const BRAND_NAMES = { MASTERCARD: 'Mastercard', VISA: 'Visa', AMEX: 'American Express', DINERS_CLUB: 'Diners Club', DISCOVER: 'Discover', JCB: 'JCB', MAESTRO: 'Maestro', UNIONPAY: 'UnionPay' };

/** "Visa ending 1019, expires 07/41". */
function storedCardText(card) {
  const brand = BRAND_NAMES[card.brand] || 'Card';
  const last4 = String(card.number || '').slice(-4);
  const expiry = /^[0-9]{4}$/.test(card.expiry || '') ? `, expires ${card.expiry.slice(0, 2)}/${card.expiry.slice(2)}` : '';
  return `${brand} ending ${last4}${expiry}`;
}

function choice(value, text, checked) {
  const label = document.createElement('label');
  label.className = 'choice';
  const input = document.createElement('input');
  Object.assign(input, { type: 'radio', name: 'stored-card', value, checked });
  const span = document.createElement('span');
  span.textContent = text;
  label.append(input, span);
  return label;
}

/** The token chosen, or null for a new card (typed into the hosted fields). */
function chosenToken() {
  const checked = document.querySelector('input[name="stored-card"]:checked');
  return checked && checked.value !== 'new' ? checked.value : null;
}

/** The choices drawn (the first stored card chosen); the card fields shown only for a new card. */
function drawStoredCards(checkout) {
  const cards = Array.isArray(checkout.storedCards) ? checkout.storedCards : [];
  if (cards.length === 0) return;
  const list = $('stored-cards');
  cards.forEach((card, i) => list.append(choice(card.token, storedCardText(card), i === 0)));
  list.append(choice('new', 'A new card', false));
  const follow = () => show('new-card', chosenToken() === null);
  list.addEventListener('change', follow);
  show('stored-cards');
  follow();
}
