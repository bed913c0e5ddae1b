// Certificate authentication, the spec's first method: HTTPS with client certificates signed by
// a configured CA, each mapped to its merchant in the merchants file. Certificates are made here
// with openssl.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import t from 'tap';
import { cardBody, M1, M2, MERCHANTS, tokenAuth, tokenPath, payPath } from '../helpers/app.js';
import { startServer } from '../helpers/server.js';

const openssl = (dir: string, ...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] }).toString();

function makePki(dir: string) {
  openssl(dir, 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=tokengate test CA');
  openssl(dir, 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.crt', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1');
  const client = (name: string, signed: boolean) => {
    if (signed) {
      openssl(dir, 'req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
      openssl(dir, 'x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '2');
    } else {
      openssl(dir, 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=${name}`);
    }
    const fingerprint = openssl(dir, 'x509', '-in', `${name}.crt`, '-noout', '-fingerprint', '-sha256').trim().split('=')[1]!;
    return { cert: readFileSync(join(dir, `${name}.crt`)), key: readFileSync(join(dir, `${name}.key`)), fingerprint };
  };
  return { ca: readFileSync(join(dir, 'server.crt')), m1: client('merchant-one', true), stranger: client('not-a-merchant', true), selfSigned: client('self-signed', false) };
}

interface Identity { cert: Buffer; key: Buffer }
function call(url: string, ca: Buffer, method: string, path: string, identity: Identity | undefined, body?: unknown, authorization?: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(url + path, {
      method, ca, ...(identity ?? {}),
      headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    }, (res) => {
      let text = '';
      res.on('data', (c) => { text += String(c); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

t.test('a client certificate authenticates its merchant over HTTPS', async (t) => {
  const dir = t.testdir();
  const pki = makePki(dir);
  const merchants = structuredClone(MERCHANTS) as { merchants: Array<Record<string, unknown>> };
  merchants.merchants[0]!.certificateFingerprints = [pki.m1.fingerprint];
  writeFileSync(join(dir, 'merchants.json'), JSON.stringify(merchants));
  const server = await startServer({
    EVENT_STORE: 'memory:', MERCHANTS_FILE: join(dir, 'merchants.json'),
    TLS_CERT_FILE: join(dir, 'server.crt'), TLS_KEY_FILE: join(dir, 'server.key'), TLS_CLIENT_CA_FILE: join(dir, 'ca.crt'),
  });
  t.teardown(() => server.stop('SIGKILL'));
  t.match(server.url, /^https:/);

  const created = await call(server.url, pki.ca, 'POST', tokenPath(M1.id), pki.m1, cardBody());
  t.equal(created.status, 201, `no Authorization header needed: ${created.text}`);
  const token = JSON.parse(created.text).token as string;
  const paid = await call(server.url, pki.ca, 'PUT', payPath(M1.id, token, '10000000001', '1'), pki.m1, { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } });
  t.equal(paid.status, 201, 'pay with the certificate');

  const elsewhere = await call(server.url, pki.ca, 'POST', tokenPath(M2.id), pki.m1, cardBody());
  t.equal(elsewhere.status, 401);
  t.match(elsewhere.text, 'Authenticated entity not authorised to perform operation for target entity');

  const unmapped = await call(server.url, pki.ca, 'POST', tokenPath(M1.id), pki.stranger, cardBody());
  t.equal(unmapped.status, 401, 'a CA-signed certificate of no merchant authenticates nobody');
  const selfSigned = await call(server.url, pki.ca, 'POST', tokenPath(M1.id), pki.selfSigned, cardBody());
  t.equal(selfSigned.status, 401, 'a certificate the CA did not sign is not honoured');
  const forged = await call(server.url, pki.ca, 'POST', tokenPath(M1.id), { cert: pki.m1.cert, key: pki.stranger.key }, cardBody()).catch(() => ({ status: 0, text: 'handshake refused' }));
  t.not(forged.status, 201, "a certificate without its key does not authenticate");

  const basicOverTls = await call(server.url, pki.ca, 'POST', tokenPath(M1.id), undefined, cardBody(), tokenAuth(M1));
  t.equal(basicOverTls.status, 201, 'Basic authentication still works over HTTPS');
});
