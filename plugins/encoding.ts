// Request bodies sent with a Content-Encoding (RFC 9110, 8.4): gzip (x-gzip), deflate (the zlib
// format) and br are decoded before the body is parsed, in the order the header lists them
// reversed; identity is no encoding. BODY_LIMIT counts the decoded bytes: a body that decodes to
// more (a "zip bomb": a few KiB of gzip that expand to gigabytes) is refused with 413 the moment
// its decoded size passes the limit, and decoding stops there. Data that is not what its coding
// says is a 400; any other coding a 415 (RFC 9110, 15.5.16), each in the gateway's error shape. A
// path that names no operation is a 404 whatever its body (plugins/errors.ts): nothing is decoded
// there.
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { errorCodes, type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { InvalidRequest } from '../domain/errors.js';
import { announcesBody } from '../lib/body-follows.js';
import { FrameworkRefusal } from './errors.js';

const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip, 'x-gzip': createGunzip, deflate: createInflate, br: createBrotliDecompress,
};

/** The codings the header lists, identity left out; undefined when one is not supported. */
function codingsOf(header: string): string[] | undefined {
  const codings = header.split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity');
  return codings.every((c) => Object.hasOwn(DECODERS, c)) ? codings : undefined;
}

/** Counts the decoded bytes and stops at `limit`, before the chunk that would pass it goes on. */
class Limited extends Transform {
  /** The encoded bytes received (Fastify compares them with Content-Length). */
  receivedEncodedLength = 0;
  private decoded = 0;
  constructor(private readonly limit: number, private readonly stop: () => void) { super(); }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.decoded += chunk.length;
    if (this.decoded > this.limit) {
      this.stop();
      callback(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      return;
    }
    callback(null, chunk);
  }
}

/** `raw` decoded through each coding (the last applied first), limited to `limit` decoded bytes. */
function decode(raw: Readable, codings: readonly string[], limit: number, header: string): Readable {
  const decoders = [...codings].reverse().map((coding) => DECODERS[coding]!());
  const stop = () => {
    raw.unpipe(decoders[0]);
    for (const decoder of decoders) decoder.destroy();
  };
  const out = new Limited(limit, stop);
  // A failure nobody reads (a route that takes no body) is no uncaught error; Fastify's parser
  // listens too when it reads the body.
  out.on('error', () => {});
  raw.on('data', (chunk: Buffer) => { out.receivedEncodedLength += chunk.length; });
  // A client gone mid-body (the request's 'aborted' error): a pipe does not pass it on, and the
  // body's read would wait for an end that never comes; passed on, it ends as an unencoded body's.
  raw.on('error', (error) => {
    stop();
    out.destroy(error);
  });
  let from: Readable = raw;
  for (const decoder of decoders) {
    // Data that is not what its coding says (zlib's error quotes nothing of the body).
    decoder.on('error', () => {
      stop();
      out.destroy(new InvalidRequest(`The request body is not valid data of its Content-Encoding '${header.slice(0, 40)}'`));
    });
    from = from.pipe(decoder);
  }
  return from.pipe(out);
}

async function encodingPlugin(app: FastifyInstance) {
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const header = request.headers['content-encoding'];
    if (header === undefined || request.is404) return done(null, payload);
    const codings = codingsOf(header);
    if (codings === undefined) {
      return done(new FrameworkRefusal(415, `Content-Encoding '${header.slice(0, 40)}' is not supported: send the body as is, or encoded with gzip, deflate or br`, 'UNSUPPORTED_CONTENT_ENCODING'));
    }
    if (codings.length === 0 || !announcesBody(request.headers)) return done(null, payload);
    done(null, decode(payload, codings, request.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? 1_048_576, header));
  });
}

export default fp(encodingPlugin, { name: 'encoding', fastify: '5.x', dependencies: ['errors'] });
