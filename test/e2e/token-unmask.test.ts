// Issue 3, item 6: unmasked account numbers only with responseControls.sensitiveData UNMASK and
// certificate authentication (spec); over Basic authentication the same request is answered
// masked. A real HTTPS server with client certificates made here with openssl.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import t from 'tap';
import { M1, MERCHANTS, tokenAuth, tokenPath } from '../helpers/app.js';
import { startServer } from '../helpers/server.js';

const openssl = (dir: string, ...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] }).toString();

function pki(dir: string) {
  openssl(dir, 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=tokengate unmask CA');
  openssl(dir, 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.crt', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1');
  openssl(dir, 'req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'm1.key', '-out', 'm1.csr', '-subj', '/CN=m1');
  openssl(dir, 'x509', '-req', '-in', 'm1.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'm1.crt', '-days', '2');
  const fingerprint = openssl(dir, 'x509', '-in', 'm1.crt', '-noout', '-fingerprint', '-sha256').trim().split('=')[1]!;
  return { ca: readFileSync(join(dir, 'server.crt')), cert: readFileSync(join(dir, 'm1.crt')), key: readFileSync(join(dir, 'm1.key')), fingerprint };
}

function post(url: string, ca: Buffer, identity: { cert: Buffer; key: Buffer } | undefined, body: unknown, authorization?: string) {
  return new Promise<{ status: number; json: Record<string, any> }>((resolve, reject) => {
    const req = request(url + tokenPath(M1.id), {
      method: 'POST', ca, ...(identity ?? {}),
      headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    }, (res) => {
      let text = '';
      res.on('data', (c) => { text += String(c); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as Record<string, any> }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const ADMIN_PASSWORD = 'admin-password-for-the-unmask-test';

function get(url: string, ca: Buffer, path: string, authorization: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(url + path, { method: 'GET', ca, headers: { authorization } }, (res) => {
      let text = '';
      res.on('data', (c) => { text += String(c); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('UNMASK: the clear number with a client certificate, masked with Basic authentication', async (t) => {
  const dir = t.testdir();
  const keys = pki(dir);
  const merchants = structuredClone(MERCHANTS) as { merchants: Array<Record<string, unknown>> };
  merchants.merchants[0]!.certificateFingerprints = [keys.fingerprint];
  writeFileSync(join(dir, 'merchants.json'), JSON.stringify(merchants));
  const server = await startServer({
    EVENT_STORE: 'memory:', MERCHANTS_FILE: join(dir, 'merchants.json'),
    TLS_CERT_FILE: join(dir, 'server.crt'), TLS_KEY_FILE: join(dir, 'server.key'), TLS_CLIENT_CA_FILE: join(dir, 'ca.crt'),
    ADMIN_PASSWORD,
  });
  t.teardown(() => server.stop('SIGKILL'));
  const unmask = { responseControls: { sensitiveData: 'UNMASK' } };
  const cardBody = { ...unmask, sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } } };
  const achBody = { ...unmask, sourceOfFunds: { type: 'ACH', provided: { ach: { accountType: 'CONSUMER_CHECKING', bankAccountHolder: 'J', bankAccountNumber: '123456789', routingNumber: '021000021', secCode: 'PPD' } } } };

  const certified = await post(server.url, keys.ca, keys, cardBody);
  t.equal(certified.status, 201);
  t.equal(certified.json.sourceOfFunds.provided.card.number, '5123450000000008', 'certificate + UNMASK: unmasked');
  const certifiedAch = await post(server.url, keys.ca, keys, achBody);
  t.equal(certifiedAch.json.sourceOfFunds.provided.ach.bankAccountNumber, '123456789', 'bank account numbers too');
  const withoutUnmask = await post(server.url, keys.ca, keys, { sourceOfFunds: cardBody.sourceOfFunds });
  t.equal(withoutUnmask.json.sourceOfFunds.provided.card.number, '512345xxxxxx0008', 'certificate without UNMASK: masked');
  const basic = await post(server.url, keys.ca, undefined, cardBody, tokenAuth(M1));
  t.equal(basic.status, 201);
  t.equal(basic.json.sourceOfFunds.provided.card.number, '512345xxxxxx0008', 'Basic + UNMASK: masked');

  // The request journal keeps the unmasked answers masked.
  const journal = await get(server.url, keys.ca, '/admin/api/requests', `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}`);
  t.equal(journal.status, 200);
  t.notOk(journal.text.includes('5123450000000008') || journal.text.includes('123456789'), 'no clear number in the journal');
  const requests = (JSON.parse(journal.text) as { requests: Array<Record<string, any>> }).requests;
  t.equal(requests.length, 4);
  t.equal(requests[3]!.response.sourceOfFunds.provided.card.number, '512345xxxxxx0008', 'the unmasked answer, masked in the journal');
  t.equal(requests[2]!.response.sourceOfFunds.provided.ach.bankAccountNumber, 'xxxxx6789', 'its bank account number too');
});
