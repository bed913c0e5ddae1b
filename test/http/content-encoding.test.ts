// Request bodies with a Content-Encoding (plugins/encoding.ts): gzip, deflate and br are decoded
// before parsing; BODY_LIMIT counts the decoded bytes (a zip bomb is a 413 and decoding stops);
// data that is not what its coding says is a 400, an unsupported coding a 415, each in the
// gateway's error shape.
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import t from 'tap';
import { buildTestApp, cardBody, M1, tokenAuth, tokenPath } from '../helpers/app.js';
import { eventually } from '../helpers/poll.js';
import { sendAndDrop } from '../helpers/raw.js';
import { assertSortedJson } from './http.fixture.js';

type App = Awaited<ReturnType<typeof buildTestApp>>;
const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const post = (app: App, payload: Buffer, encoding: string) => app.inject({
  method: 'POST', url: tokenPath(M1.id), payload,
  headers: { authorization: tokenAuth(M1), 'content-type': 'application/json', 'content-encoding': encoding },
});

t.test('gzip, x-gzip, deflate, br and a chain of two are decoded before the body is parsed', async (t) => {
  const app = await buildTestApp(t);
  const body = json(cardBody());
  const cases: Array<[string, Buffer]> = [
    ['gzip', gzipSync(body)], ['x-gzip', gzipSync(body)], ['deflate', deflateSync(body)], ['br', brotliCompressSync(body)],
    ['gzip, br', brotliCompressSync(gzipSync(body))], ['identity', body], ['GZIP', gzipSync(body)],
  ];
  for (const [encoding, payload] of cases) {
    const res = await post(app, payload, encoding);
    t.equal(res.statusCode, 201, `${encoding}: 201 (${res.body})`);
    t.equal(res.json().sourceOfFunds?.provided?.card?.number, '512345xxxxxx0008', `${encoding}: the card of the decoded body`);
  }
});

t.test('BODY_LIMIT counts the decoded size: a zip bomb is a 413 in the gateway shape, a body within it passes', async (t) => {
  const app = await buildTestApp(t, { limits: { bodyLimit: 4096 } });
  // 8 MiB of spaces around a JSON body: some 8 KiB of gzip, far below the limit before decoding.
  const bomb = gzipSync(Buffer.concat([json(cardBody()), Buffer.alloc(8 * 1024 * 1024, 0x20)]));
  t.ok(bomb.length < 4096 * 4, `the encoded bomb is small (${bomb.length} bytes)`);
  const started = process.cpuUsage();
  const res = await post(app, bomb, 'gzip');
  const cpuMs = (process.cpuUsage(started).user + process.cpuUsage(started).system) / 1000;
  t.equal(res.statusCode, 413, res.body);
  assertSortedJson(t, res, 'zip bomb');
  t.same(res.json(), { error: { cause: 'INVALID_REQUEST', explanation: 'The request body is larger than BODY_LIMIT' }, result: 'ERROR' });
  t.comment(`CPU while refusing the bomb: ${cpuMs.toFixed(0)} ms`);
  const small = await post(app, gzipSync(Buffer.concat([json(cardBody()), Buffer.alloc(1000, 0x20)])), 'gzip');
  t.equal(small.statusCode, 201, `a body within the limit once decoded (${small.body})`);
  t.equal(await app.gateway.store.headPosition(), 1n, 'only the small one stored a token');
});

t.test('data that is not what its coding says is a 400; an unsupported coding a 415; both in the gateway shape', async (t) => {
  const app = await buildTestApp(t);
  const corrupt = await post(app, Buffer.from('this is not gzip at all'), 'gzip');
  t.equal(corrupt.statusCode, 400, corrupt.body);
  assertSortedJson(t, corrupt, 'corrupt gzip');
  t.same(corrupt.json(), { error: { cause: 'INVALID_REQUEST', explanation: "The request body is not valid data of its Content-Encoding 'gzip'" }, result: 'ERROR' });
  for (const encoding of ['compress', 'zstd', 'gzip, snappy']) {
    const res = await post(app, json(cardBody()), encoding);
    t.equal(res.statusCode, 415, `${encoding}: 415 (${res.body})`);
    assertSortedJson(t, res, encoding);
    t.equal(res.json().error.cause, 'INVALID_REQUEST');
    t.match(res.json().error.explanation, /is not supported: send the body as is, or encoded with gzip, deflate or br/);
  }
  t.equal(await app.gateway.store.headPosition(), 0n, 'nothing stored');
});

t.test('a client gone mid-way through an encoded body is answered and journaled as one gone mid-way through a plain body', async (t) => {
  const app = await buildTestApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const head = (headers: string) => `POST ${tokenPath(M1.id)} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n` +
    `authorization: ${tokenAuth(M1)}\r\ncontent-type: application/json\r\n${headers}\r\n`;
  const body = json(cardBody());
  const gz = gzipSync(body);
  const halves: Array<[string, Buffer]> = [
    ['plain', Buffer.concat([Buffer.from(head(`content-length: ${body.length}\r\n`)), body.subarray(0, 10)])],
    ['gzip', Buffer.concat([Buffer.from(head(`content-length: ${gz.length}\r\ncontent-encoding: gzip\r\n`)), gz.subarray(0, 10)])],
    ['gzip, chunked', Buffer.concat([Buffer.from(head('transfer-encoding: chunked\r\ncontent-encoding: gzip\r\n')), Buffer.from('a\r\n'), gz.subarray(0, 10), Buffer.from('\r\n')])],
  ];
  for (const [index, [name, half]] of halves.entries()) {
    await sendAndDrop(port, half);
    const listed = await eventually(() => [...app.journal.newestFirst()].length > index, { timeoutMs: 10_000 });
    t.ok(listed, `${name}: the request is in the journal`);
    t.equal([...app.journal.newestFirst()][0]?.status, 400, `${name}: answered 400 (the client had gone)`);
  }
});
