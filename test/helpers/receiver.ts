// A local webhook receiver for the notification tests: node:http on 127.0.0.1, a free port. Each
// request is recorded (headers and body); `answer` says what to reply to the nth request (1-based):
// a status, or 'hold' (never answer: the request stays open until the receiver closes).
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { budget } from './slowdown.js';

export interface Received { method: string; url: string; headers: IncomingHttpHeaders; body: string }

export interface Receiver {
  /** http://127.0.0.1:<port> */
  origin: string;
  received: Received[];
  /** Resolves once `count` requests have arrived (rejects after `ms`). */
  waitFor(count: number, ms?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(answer: (n: number, request: Received) => number | 'hold' = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const held: ServerResponse[] = [];
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(request);
      for (const wake of waiters.splice(0)) wake();
      const reply = answer(received.length, request);
      if (reply === 'hold') { held.push(res); return; }
      res.writeHead(reply, { 'content-type': 'text/plain' }).end('answer body (not kept by the gateway)');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    async waitFor(count, ms = 30_000) {
      const deadline = Date.now() + budget(ms);
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`the receiver got ${received.length} requests, expected ${count}`);
        await new Promise<void>((resolve) => { waiters.push(resolve); setTimeout(resolve, 50); });
      }
      return received.slice(0, count);
    },
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => undefined);
    },
  };
}
