// Raw HTTP/1.1 over a TCP socket on 127.0.0.1, for what fetch cannot do: clients that drop the
// connection right after (or in the middle of) a request, bodies that dribble, odd headers.
import { connect, type Socket } from 'node:net';
import { budget } from './slowdown.js';

/** A request as bytes on the wire: Content-Length from the body, `Connection: close` unless given. */
export function rawRequest(method: string, path: string, headers: Record<string, string>, body = ''): string {
  const all: Record<string, string> = { host: '127.0.0.1', connection: 'close', ...headers };
  if (body !== '' || method === 'PUT' || method === 'POST') {
    all['content-type'] ??= 'application/json';
    all['content-length'] ??= String(Buffer.byteLength(body));
  }
  const lines = Object.entries(all).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return `${method} ${path} HTTP/1.1\r\n${lines}\r\n${body}`;
}

/** The index of the first body byte of a raw request. */
export const bodyStart = (raw: string) => raw.indexOf('\r\n\r\n') + 4;

const opened = (port: number) => new Promise<Socket>((resolve, reject) => {
  const socket = connect(port, '127.0.0.1', () => resolve(socket));
  socket.once('error', reject);
});

/**
 * Connect, send the first `cut` bytes of `raw` (all of it by default), and close the connection as
 * soon as they have been handed to the kernel, without reading anything: a client that gave up.
 * `reset` drops with a TCP reset instead of a FIN.
 */
export async function sendAndDrop(port: number, raw: string | Buffer, cut?: number, reset = false): Promise<void> {
  const bytes = typeof raw === 'string' ? Buffer.from(raw) : raw;
  const socket = await opened(port);
  socket.on('error', () => {});
  await new Promise<void>((resolve) => socket.write(bytes.subarray(0, cut ?? bytes.length), () => resolve()));
  if (reset) socket.resetAndDestroy(); else socket.destroy();
}

/** Send `raw` and read everything the server writes until it closes (or `timeoutMs`, scaled by the slowdown, passes). */
export async function exchange(port: number, raw: string | Buffer, timeoutMs = 5000): Promise<string> {
  const socket = await opened(port);
  return new Promise<string>((resolve) => {
    let data = '';
    const timer = setTimeout(() => { socket.destroy(); resolve(data); }, budget(timeoutMs));
    socket.on('data', (chunk) => { data += chunk.toString('latin1'); });
    socket.on('close', () => { clearTimeout(timer); resolve(data); });
    socket.on('error', () => {});
    socket.write(raw);
  });
}

/** A response as text: status, lower-cased headers, and the body bytes that followed them. */
export function parseResponse(text: string): { status: number; headers: Record<string, string>; body: string } {
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: end < 0 ? '' : text.slice(end + 4) };
}

/** Run `count` tasks, at most `width` at a time. */
export async function inBatches(count: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, count) }, async () => {
    while (next < count) await task(next++);
  }));
}

/**
 * Counts a server's connections: how many it accepted, how many are still open. A test waits for
 * the server to have seen (and closed) every connection it made before looking at what they left.
 */
export function trackConnections(server: { on(event: 'connection', listener: (socket: Socket) => void): unknown }) {
  let accepted = 0;
  const open = new Set<Socket>();
  server.on('connection', (socket) => {
    accepted++;
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return { accepted: () => accepted, open: () => open.size };
}
