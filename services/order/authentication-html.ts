// The HTML an authentication's answers carry (authentication.redirect.html), as the gateway writes
// it: the merchant puts it in the payer's page and it moves the browser on by itself. The ACS
// method call (Initiate Authentication), the challenge (a form that posts the creq to the
// emulator's challenge page, routes/acs.ts, inside iframe#challengeFrame), and the way back to the
// merchant's redirectResponseUrl (frictionless, and the challenge page's answer). Every value
// written into the markup is escaped: the URL and ids come from the merchant.

/** Text safe inside an HTML attribute value in double quotes, and in element content. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#39;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const hidden = (fields: ReadonlyArray<[string, string]>) =>
  fields.map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}" />`).join(' ');

/** The gateway's address when the request's is not known (notifications, the CLI). */
export const DEFAULT_ORIGIN = 'http://127.0.0.1:8080';

/** Where the emulator's pages are, under the gateway's own address (`origin`, e.g. http://127.0.0.1:8080). */
export const acsUrls = (origin: string, merchantId: string, orderId: string, transactionId: string) => ({
  methodUrl: `${origin}/acs/mastercard/v2/method`,
  acsUrl: `${origin}/acs/mastercard/v2/prompt/${[merchantId, orderId, transactionId].map(encodeURIComponent).join('/')}`,
});

const base64Json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

/** threeDSMethodData of the ACS method call: the 3DS server's transaction id. */
export const methodPostData = (threeDSServerTransactionId: string) => base64Json({ threeDSServerTransID: threeDSServerTransactionId });

/** The challenge request (CReq) the browser posts to the ACS. */
export const challengeRequest = (threeDSServerTransactionId: string, acsTransactionId: string) => base64Json({
  threeDSServerTransID: threeDSServerTransactionId, acsTransID: acsTransactionId, challengeWindowSize: '05', messageType: 'CReq', messageVersion: '2.2.0',
});

/** Initiate Authentication without a method call: an empty script. */
export const NO_METHOD_HTML = '<script id="initiate-authentication-script"></script>';

/** Initiate Authentication with a method call: a hidden iframe the ACS's method page loads in. */
export function methodHtml(methodUrl: string, postData: string): string {
  return '<div id="initiate3dsSimpleRedirect" xmlns="http://www.w3.org/1999/html"> <iframe id="methodFrame" name="methodFrame" height="100" width="200" > </iframe> '
    + `<form id ="initiate3dsSimpleRedirectForm" method="POST" action="${escapeHtml(methodUrl)}" target="methodFrame"> ${hidden([['threeDSMethodData', postData]])} </form> `
    + '<script id="initiate-authentication-script"> var e=document.getElementById("initiate3dsSimpleRedirectForm"); if (e) { e.submit(); if (e.parentNode !== null) { e.parentNode.removeChild(e); } } </script> </div>';
}

/** Authenticate Payer, a challenge: the creq posted to the ACS inside iframe#challengeFrame. */
export function challengeHtml(acsUrl: string, creq: string): string {
  return '<div id="threedsChallengeRedirect" xmlns="http://www.w3.org/1999/html" style=" height: 100vh"> '
    + `<form id ="threedsChallengeRedirectForm" method="POST" action="${escapeHtml(acsUrl)}" target="challengeFrame"> ${hidden([['creq', creq]])} </form> `
    + '<iframe id="challengeFrame" name="challengeFrame" width="100%" height="100%" ></iframe> '
    + '<script id="authenticate-payer-script"> var e=document.getElementById("threedsChallengeRedirectForm"); if (e) { e.submit(); if (e.parentNode !== null) { e.parentNode.removeChild(e); } } </script> </div>';
}

/** What the browser posts back to the merchant's redirectResponseUrl. */
export interface RedirectResponse { orderId: string; transactionId: string; result: string; gatewayRecommendation: string }

const redirectFields = (r: RedirectResponse): Array<[string, string]> =>
  [['order.id', r.orderId], ['transaction.id', r.transactionId], ['response.gatewayRecommendation', r.gatewayRecommendation], ['result', r.result]];

/** Authenticate Payer, frictionless: a form that posts the result straight back to the merchant. */
export function frictionlessHtml(redirectResponseUrl: string, response: RedirectResponse): string {
  return '<div id="threedsFrictionLessRedirect" xmlns="http://www.w3.org/1999/html"> <iframe id="challengeFrame" name="challengeFrame"> </iframe> '
    + `<form id="threedsFrictionLessRedirectForm" method="POST" action="${escapeHtml(redirectResponseUrl)}" target="challengeFrame"> ${hidden(redirectFields(response))} </form> `
    + '<script id="authenticate-payer-script"> var e=document.getElementById("threedsFrictionLessRedirectForm"); if (e) { e.submit(); if (e.parentNode !== null) { e.parentNode.removeChild(e); } } </script> </div>';
}

/** The challenge page's last page: the browser posts the result back to the merchant (in the frame the page is in). */
export function returnPage(redirectResponseUrl: string, response: RedirectResponse): string {
  return '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Returning to the merchant</title>'
    + '<meta name="viewport" content="width=device-width, initial-scale=1"></head><body>'
    + `<form id="acsResultForm" method="POST" action="${escapeHtml(redirectResponseUrl)}"> ${hidden(redirectFields(response))} `
    + '<noscript><button type="submit">Return to the merchant</button></noscript></form>'
    + '<script>document.getElementById("acsResultForm").submit();</script></body></html>';
}
