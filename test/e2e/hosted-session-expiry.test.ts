// A session that expires (SESSION_LIFETIME_MS, short here) while the payer is on the example
// shop's page (examples/hosted-session/), in headless Chromium: the update from the hosted fields
// gets request_timeout, and the page tells the payer to start again.
import { existsSync } from 'node:fs';
import t from 'tap';
import { basic, M1 } from '../helpers/app.js';
import { call } from '../helpers/server.js';
import { CHROMIUM, gatewayAndShop, launch, openShop, pay, typeCard } from './hosted-session.fixture.js';

const skip = existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install chromium`;
const merchantAuth = basic(`merchant.${M1.id}`, M1.apiPassword);

t.test('a session that expires before the payer pays: request_timeout, and the page says so', { skip }, async (t) => {
  const { gateway, shop } = await gatewayAndShop(t, { SESSION_LIFETIME_MS: '5000' });
  const browser = await launch(t);
  const page = await browser.newPage();
  const session = await openShop(page, shop);
  await typeCard(page, { number: '5123450000000008', month: '01', year: '39', securityCode: '100' });
  // The gateway forgets the session: Retrieve Session refuses it (polled; a bound, not a timing).
  const deadline = Date.now() + 60_000;
  while ((await call(gateway.url, 'GET', `/api/rest/version/100/merchant/${M1.id}/session/${session}`, merchantAuth)).status !== 400) {
    if (Date.now() > deadline) throw new Error('the session did not expire');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  t.match(await pay(page), 'Your payment session timed out');
});
