// The address a webhook attempt connects to. The merchants file allows URLs by host name, but the
// name's owner decides what it resolves to, and may point it, at any time, at the gateway's own
// machine (127.0.0.1), its private network or the cloud's metadata service (169.254.169.254). So a
// name is resolved once per attempt, the address it gives is checked, and the attempt connects to
// that very address (delivery.ts: no second resolution that DNS could answer differently).
//
// The rules (docs/notifications.md, "Which addresses are called"): a URL whose host is an address
// (http://127.0.0.1:8081/) is called as the merchants file names it. A host name must resolve to a
// public address; `localhost` (and names under `.localhost`) to a loopback one; a name the
// merchant's `notifications.privateHosts` lists (a service on the same private network, such as a
// docker-compose service name) may also resolve to a loopback or private one. A name never reaches
// a link-local address (the metadata service), an unspecified, multicast or reserved one.
import dns from 'node:dns';
import { BlockList, isIP } from 'node:net';

export interface Destination { address: string; family: 4 | 6 }

/** Resolves a host name to its addresses (tests give their own: there is no DNS in a test). */
export type HostLookup = (hostname: string) => Promise<ReadonlyArray<{ address: string; family: number }>>;

/** The system's resolver, looked up when called (a test that replaces dns.lookup replaces it here too). */
export const systemLookup: HostLookup = (hostname) => new Promise((resolve, reject) => {
  dns.lookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
});

type Kind = 'loopback' | 'private' | 'link-local' | 'special';

const ranges = (kind: Kind, family: 'ipv4' | 'ipv6', subnets: ReadonlyArray<readonly [string, number]>) => {
  const list = new BlockList();
  for (const [network, prefix] of subnets) list.addSubnet(network, prefix, family);
  return { kind, family, list };
};

/** Addresses that are not the public internet's, by kind (IANA's special-purpose registries). */
const SPECIAL = [
  ranges('loopback', 'ipv4', [['127.0.0.0', 8]]),
  ranges('loopback', 'ipv6', [['::1', 128]]),
  ranges('private', 'ipv4', [['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['100.64.0.0', 10]]),
  ranges('private', 'ipv6', [['fc00::', 7]]),
  ranges('link-local', 'ipv4', [['169.254.0.0', 16]]),
  ranges('link-local', 'ipv6', [['fe80::', 10]]),
  ranges('special', 'ipv4', [
    ['0.0.0.0', 8], ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['198.18.0.0', 15],
    ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
  ]),
  ranges('special', 'ipv6', [['::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23], ['2001:db8::', 32], ['fec0::', 10], ['ff00::', 8]]),
];

/** The 16 bytes of an IPv6 address (isIP already said it is one). */
function ipv6Bytes(address: string): number[] {
  let text = address.split('%')[0] as string;
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    tail.push(...(dotted[1] as string).split('.').map(Number));
    text = `${text.slice(0, -(dotted[1] as string).length)}0:0`;
  }
  const [head = '', rest] = text.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const words = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = words.flatMap((w) => [w >> 8, w & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** The IPv4 address an IPv6 one carries and is routed as (mapped ::ffff:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16). */
function embeddedIpv4(address: string): string | undefined {
  const b = ipv6Bytes(address);
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return b.slice(12).join('.');
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) return b.slice(12).join('.');
  if (b[0] === 0x20 && b[1] === 0x02) return b.slice(2, 6).join('.');
  return undefined;
}

/** What kind of non-public address this is, or undefined for a public one. */
export function addressKind(address: string): Kind | undefined {
  const family = isIP(address);
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4 !== undefined) return addressKind(v4);
  }
  const type = family === 4 ? 'ipv4' : family === 6 ? 'ipv6' : undefined;
  if (type === undefined) return 'special';
  const bare = address.split('%')[0] as string;
  return SPECIAL.find((r) => r.family === type && r.list.check(bare, type))?.kind;
}

const isLocalhost = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/** Why a host name may not reach this address, or undefined when it may. */
function refusal(host: string, address: string, privateHosts: readonly string[]): string | undefined {
  const kind = addressKind(address);
  if (kind === undefined) return undefined;
  if (kind === 'loopback' && isLocalhost(host)) return undefined;
  if ((kind === 'loopback' || kind === 'private') && privateHosts.includes(host)) return undefined;
  return `${host} resolves to ${address}, a ${kind} address, which a host name may not reach`;
}

/**
 * The address an attempt to `url` connects to: its host if it is an address, else the first
 * address its name resolves to (one resolution) that the rules allow; or why none is called.
 */
export async function destinationOf(url: URL, lookup: HostLookup, privateHosts: readonly string[] = []): Promise<Destination | { refused: string }> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const literal = isIP(host);
  if (literal !== 0) return { address: host, family: literal as 4 | 6 };
  let addresses: ReadonlyArray<{ address: string; family: number }>;
  try {
    addresses = await lookup(host.replace(/\.$/, ''));
  } catch (error) {
    const e = error as { code?: unknown; message?: unknown };
    return { refused: `${host} does not resolve: ${String(e.code ?? e.message ?? error)}` };
  }
  const allowedHosts = privateHosts.map((h) => h.toLowerCase());
  let why: string | undefined;
  for (const { address, family } of addresses) {
    if (isIP(address) !== family) continue;
    why = refusal(host.replace(/\.$/, ''), address, allowedHosts);
    if (why === undefined) return { address, family: family as 4 | 6 };
  }
  return { refused: why ?? `${host} resolves to no address` };
}
