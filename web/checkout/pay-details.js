// The payment page, the payer's details (Initiate Checkout's interaction.displayControl, as the
// checkout's view gives it in `display`): the email address and the billing address, each hidden,
// shown read-only (the merchant's), or asked for (filled with the merchant's; MANDATORY ones must
// be given before Pay does anything); the merchant's shipping address shown; the order summary
// whole, partial (the total only) or hidden; and, with paymentConfirmation SHOW, a last look at
// the payment before it is made.
'use strict';

const COUNTRIES = [
  ['AUS', 'Australia'], ['AUT', 'Austria'], ['BEL', 'Belgium'], ['BRA', 'Brazil'], ['CAN', 'Canada'], ['CHE', 'Switzerland'], ['CHN', 'China'],
  ['DEU', 'Germany'], ['DNK', 'Denmark'], ['EGY', 'Egypt'], ['ESP', 'Spain'], ['FIN', 'Finland'], ['FRA', 'France'], ['GBR', 'United Kingdom'],
  ['HKG', 'Hong Kong'], ['IND', 'India'], ['IRL', 'Ireland'], ['ITA', 'Italy'], ['JPN', 'Japan'], ['KEN', 'Kenya'], ['MEX', 'Mexico'],
  ['MYS', 'Malaysia'], ['NLD', 'Netherlands'], ['NOR', 'Norway'], ['NZL', 'New Zealand'], ['POL', 'Poland'], ['PRT', 'Portugal'],
  ['QAT', 'Qatar'], ['SAU', 'Saudi Arabia'], ['SGP', 'Singapore'], ['SWE', 'Sweden'], ['ARE', 'United Arab Emirates'], ['USA', 'United States'],
  ['ZAF', 'South Africa'],
];
const ADDRESS_INPUTS = {
  street: 'billing-street', street2: 'billing-street2', city: 'billing-city', postcodeZip: 'billing-postcode',
  stateProvince: 'billing-state', stateProvinceCode: 'billing-state-code', country: 'billing-country',
};
/** billing.address.stateProvinceCode as the gateway bounds it: an ISO 3166-2 subdivision code. */
const STATE_CODE = /^[0-9A-Z]{1,3}$/;
const REQUIRED_ADDRESS = ['street', 'city', 'country'];
/** The gateway's rule for an email address (schemas/token.ts Email): no white space, specials or controls. */
const EMAIL = /^[^\s@"(),:;<>[\]\\\x00-\x1f\x7f-\x9f\ud800-\udfff]+@[^\s@"(),:;<>[\]\\\x00-\x1f\x7f-\x9f\ud800-\udfff]+\.[^\s@"(),:;<>[\]\\\x00-\x1f\x7f-\x9f\ud800-\udfff]+$/u;

const editable = (mode) => mode === 'MANDATORY' || mode === 'OPTIONAL';

/** An address in lines: street, city, state (its code) and postcode, country. */
function addressText(address) {
  const a = address || {};
  const country = (COUNTRIES.find(([code]) => code === a.country) || [])[1] || a.country;
  const state = a.stateProvince && a.stateProvinceCode ? `${a.stateProvince} (${a.stateProvinceCode})` : a.stateProvince || a.stateProvinceCode;
  return [a.street, a.street2, [a.city, state, a.postcodeZip].filter(Boolean).join(' '), country].filter(Boolean).join(', ');
}

function readOnlyBlock(id, title, text) {
  const box = $(id);
  box.textContent = '';
  const strong = document.createElement('strong');
  strong.textContent = title;
  const line = document.createElement('span');
  line.textContent = text || 'Not given';
  box.append(strong, line);
  show(id, true);
}

function countryOptions(current) {
  const select = $('billing-country');
  const list = COUNTRIES.some(([code]) => code === current) || !current ? COUNTRIES : [[current, current], ...COUNTRIES];
  select.append(new Option('Choose a country', ''));
  for (const [code, name] of list) select.append(new Option(name, code));
  select.value = current || '';
}

/** The order summary as displayControl.orderSummary says: SHOW (default), SHOW_PARTIAL (the total only), HIDE. */
function drawOrderSummary(display) {
  const mode = (display && display.orderSummary) || 'SHOW';
  if (mode === 'HIDE') show('summary', false);
  show('summary-lines', mode === 'SHOW');
}

/** The email and billing address inputs (or read-only lines), the shipping address. */
function drawDetails(checkout) {
  const display = checkout.display || {};
  drawOrderSummary(display);
  const email = display.customerEmail;
  const billing = display.billingAddress;
  if (email && editable(email.mode)) {
    show('email-block');
    $('customer-email').value = email.value || '';
    $('customer-email').required = email.mode === 'MANDATORY';
    show('email-optional', email.mode === 'OPTIONAL');
  } else if (email && email.mode === 'READ_ONLY') readOnlyBlock('email-readonly', 'Email', email.value);
  if (billing && editable(billing.mode)) {
    show('billing-block');
    countryOptions(billing.value && billing.value.country);
    for (const [name, id] of Object.entries(ADDRESS_INPUTS)) {
      if (name !== 'country') $(id).value = (billing.value && billing.value[name]) || '';
      $(id).required = billing.mode === 'MANDATORY' && REQUIRED_ADDRESS.includes(name);
    }
    show('billing-optional', billing.mode === 'OPTIONAL');
  } else if (billing && billing.mode === 'READ_ONLY') readOnlyBlock('billing-readonly', 'Billing address', addressText(billing.value));
  if (display.shipping) readOnlyBlock('shipping-readonly', 'Shipping address', addressText(display.shipping));
  show('payer-details', Boolean((email && email.mode !== 'HIDE') || (billing && billing.mode !== 'HIDE') || display.shipping));
}

function markMissing(id, errorId, text) {
  $(id).classList.toggle('missing', Boolean(text));
  if (errorId) $(errorId).textContent = text || '';
}

/** The email typed, or an error; undefined when not asked or left blank. */
function readEmail(mode) {
  if (!editable(mode)) return { value: undefined };
  const value = $('customer-email').value.trim();
  if (value === '' && mode === 'MANDATORY') return { error: 'Enter your email address.' };
  if (value !== '' && !EMAIL.test(value)) return { error: 'Enter an email address such as name@example.com.' };
  return { value: value || undefined };
}

function readAddress(mode) {
  if (!editable(mode)) return { value: undefined };
  const address = {};
  for (const [name, id] of Object.entries(ADDRESS_INPUTS)) {
    const typed = $(id).value.trim();
    const value = name === 'stateProvinceCode' ? typed.toUpperCase() : typed;
    if (value) address[name] = value;
    markMissing(id, null, mode === 'MANDATORY' && REQUIRED_ADDRESS.includes(name) && !value ? 'missing' : '');
  }
  const missing = mode === 'MANDATORY' && REQUIRED_ADDRESS.some((name) => !address[name]);
  if (missing) return { error: 'Enter your billing address: street, city and country.' };
  const code = address.stateProvinceCode;
  markMissing('billing-state-code', null, code !== undefined && !STATE_CODE.test(code) ? 'invalid' : '');
  if (code !== undefined && !STATE_CODE.test(code)) return { error: 'Enter the state code as 1 to 3 letters or digits, such as NY, or leave it empty.' };
  return { value: Object.keys(address).length > 0 ? address : undefined };
}

/**
 * What Pay sends beside the card: { billing, customer } as the payer gave them, or null when a
 * required one is missing (marked on the page, the first such input focused).
 */
function payerDetails(checkout) {
  const display = checkout.display || {};
  const email = readEmail(display.customerEmail && display.customerEmail.mode);
  const address = readAddress(display.billingAddress && display.billingAddress.mode);
  if (display.customerEmail && editable(display.customerEmail.mode)) markMissing('customer-email', 'customer-email-error', email.error);
  $('billing-error').textContent = address.error || '';
  if (email.error || address.error) {
    const first = document.querySelector('#payer-details .missing');
    if (first) first.focus();
    return null;
  }
  return Object.assign({}, address.value ? { billing: { address: address.value } } : {}, email.value ? { customer: { email: email.value } } : {});
}

/** paymentConfirmation SHOW: the payment shown before it is made; `pay` on Confirm, `back` to change it. */
function confirmPayment(checkout, card, details, actions) {
  show('pay-form', false);
  const rows = [
    ['Amount', money(checkout.order.amount, checkout.order.currency)], ['Card', card],
    ['Email', details.customer && details.customer.email], ['Billing address', details.billing && addressText(details.billing.address)],
  ];
  const list = $('confirm-details');
  list.textContent = '';
  for (const [term, value] of rows) {
    if (!value) continue;
    const dt = document.createElement('dt');
    const dd = document.createElement('dd');
    dt.textContent = term;
    dd.textContent = value;
    list.append(dt, dd);
  }
  $('confirm-pay').textContent = $('pay-button').dataset.label || 'Pay';
  $('confirm-pay').onclick = () => { show('confirm', false); show('pay-form'); busy(true); actions.pay(); };
  $('confirm-back').onclick = () => { show('confirm', false); show('pay-form'); busy(false); };
  show('confirm');
  $('confirm-pay').focus();
}
