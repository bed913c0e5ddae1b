// The API reference's document, finished for a reader (plugins/openapi.ts registers it): the
// gateway's operations first, in the order of the tags below (NVP after REST), the admin routes in
// their own tag at the end; a description of everything tokengate serves; placeholders such as
// `merchant.<merchantId>` kept out of the markdown's HTML; and, for every operation, the
// examples of schemas/examples.json: real answers of tokengate to the requests shown, checked
// against the schemas and replayed by test/http/openapi.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RouteOptions } from 'fastify';
import { PROJECT_ROOT } from '../config.js';
import { DEACTIVATED, FIRST_VERSION, SESSIONS } from '../schemas/versions.js';

/** The versions the token, session and order operations answer on (docs/operations.md, "Versions"). */
const served = (first: number) => `versions ${first}-100 but the deactivated ${[...DEACTIVATED].filter((v) => v >= first).join(', ')}`;
const SERVED = served(1);
const FROM = FIRST_VERSION;

export const TAGS = [
  { name: 'token', description: `Create or Update Token, Tokenize with a merchant-supplied token id, Retrieve and Delete Token, on ${SERVED}` },
  { name: 'pay', description: 'Pay with token (version 3), and its Retrieve Order and Retrieve Transaction' },
  { name: 'order', description: `The order API on ${SERVED}: PAY, AUTHORIZE, CAPTURE, REFUND, VOID (from version ${FROM.VOID}) and VERIFY (from ${FROM.VERIFY}); Retrieve Order (from ${FROM['Retrieve Order']}) and Retrieve Transaction` },
  { name: 'session', description: `Create, Update and Retrieve Session, on ${served(FROM[SESSIONS])}` },
  { name: 'gateway', description: 'Check Gateway: no authentication' },
  { name: 'nvp', description: "The same operations (all but version 3's) in the gateway's NVP protocol: POST /api/nvp/version/{version}, a form of dotted fields (apiOperation, merchant, apiUsername, apiPassword, order.id, ...), the answer the same pairs; and its Check Gateway" },
  { name: 'admin', description: "tokengate's own: the timeline, histories and Prometheus metrics, and the test-control API (reset a merchant, advance its clock, resolve an UNKNOWN, redeliver or fire a notification; 404 unless TEST_CONTROL is on). User admin, password ADMIN_PASSWORD (never a merchant's credentials)" },
];

export const DESCRIPTION = [
  "A faithful, event-sourced sandbox of the Mastercard Gateway's card-token and order API: the real gateway's paths, authentication, fields, bounds, status codes and error bodies.",
  '',
  '- **Create or Update Token** (`POST .../token`), **Tokenize** (`PUT .../token/{tokenid}`, merchant-supplied token ids), **Retrieve Token** and **Delete Token**',
  '- **Pay with token** (version 3) and its **Retrieve Order** and **Retrieve Transaction**',
  '- the **order API**: **PAY**, **AUTHORIZE**, **CAPTURE**, **REFUND**, **VOID** and **VERIFY** with a token, a session or a card; **Retrieve Order** and **Retrieve Transaction**',
  '- **Create**, **Update** and **Retrieve Session**',
  '- **Check Gateway** (no authentication)',
  "- every operation above but version 3's in **NVP**, the gateway's name-value-pair protocol: `POST /api/nvp/version/{version}` with `apiOperation=PAY&merchant=...&order.id=...`, the answer the same pairs",
  '',
  `The token, session and order operations answer on ${SERVED} (each operation from its first version: VOID ${FROM.VOID}, VERIFY ${FROM.VERIFY}, Retrieve Order ${FROM['Retrieve Order']}, the sessions ${FROM[SESSIONS]}), all in version 100's shape; Pay with token and its retrievals stay on version 3's paths.`,
  '',
  'Authentication: Basic, user `merchant.<merchantId>` and the API password (Pay with token and its version 3 retrievals: a blank user id and the API password), or a client certificate; in NVP the same user id and password may be the fields `apiUsername` and `apiPassword`. ' +
  "Outcomes are chosen as the real test environment chooses them (the card's expiry, the security code, the street) and by documented triggers (docs/triggers.md); an identical repeat answers the recorded outcome, and records nothing. " +
  'A decline is HTTP 201 with `result` FAILURE; every refused request gets the gateway\'s error body with the field and the reason.',
  '',
  'The admin routes at the end (the timeline, the histories, `/metrics`, the test-control API under `/admin/api/test-control/`) take user `admin` and ADMIN_PASSWORD.',
].join('\n');

/** Summaries of the admin routes that name none themselves. */
const ADMIN_SUMMARIES: Readonly<Record<string, string>> = {
  '/admin': 'The timeline page (a redirect)',
  '/admin/timeline': 'The timeline page',
  '/admin/history': "A stream's history page",
  '/admin/api/history': "A stream's history: each step with the state after it",
  '/admin/api/search': 'Find streams by order id, token, session id, transaction id or correlation id',
  '/admin/api/events': 'Events of the log, filtered and paged, oldest or newest first, each with what it did',
  '/admin/api/events/live': 'Events of the log as they are appended (server-sent events)',
  '/admin/api/tokens/:repositoryId/:token': "A token's history, as of a revision or an instant",
  '/admin/api/orders/:merchantId/:orderId': "An order's history, as of a revision or an instant",
};

/** onRoute: an admin route without tags is in the admin tag, with the admin credentials and a summary. */
export function tagAdminRoute(route: RouteOptions): void {
  if (!route.url.startsWith('/admin') || route.schema?.hide === true || route.schema?.tags !== undefined) return;
  const summary = route.schema?.summary ?? ADMIN_SUMMARIES[route.url];
  route.schema = { ...route.schema, tags: ['admin'], security: [{ adminAuth: [] }], ...(summary === undefined ? {} : { summary }) };
}

type Json = Record<string, unknown>;
interface Example { summary: string; value: unknown }
interface Examples {
  operations: Record<string, { requests?: Record<string, Example>; responses?: Record<string, Record<string, Example>> }>;
  shared: Record<string, Record<string, Example>>;
}

let loaded: Examples | undefined;
const examples = (): Examples => (loaded ??= JSON.parse(readFileSync(join(PROJECT_ROOT, 'schemas', 'examples.json'), 'utf8')) as Examples);

/** A word holding a `<placeholder>` (merchant.<merchantId>) as code: markdown renders `<...>` as an HTML tag. */
const escapePlaceholders = (text: string): string => text.replace(/(^|[^`\w.])([\w.]*<\w+>[\w.]*)(?=[^`\w]|$)/g, '$1`$2`');

function escapeDescriptions(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) escapeDescriptions(item);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const object = node as Json;
  for (const [key, value] of Object.entries(object)) {
    if ((key === 'description' || key === 'summary') && typeof value === 'string') object[key] = escapePlaceholders(value);
    else if (key !== 'example' && key !== 'examples') escapeDescriptions(value);
  }
}

/** The one media type of a request body or a response, and its content (application/json, or NVP's form). */
function contentOf(holder: unknown): [string, Json] | undefined {
  const content = (holder as { content?: Record<string, Json> } | undefined)?.content;
  return content === undefined ? undefined : Object.entries(content)[0];
}

/**
 * The examples of one operation (`METHOD /path`) put in its request body and its responses; the
 * shared ones (JSON error bodies) only where the answer is JSON.
 */
function addExamples(key: string, operation: Json): void {
  const own = examples().operations[key];
  const request = contentOf(operation.requestBody);
  if (request && own?.requests) request[1].examples = own.requests;
  for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, unknown>)) {
    const content = contentOf(response);
    if (!content) continue;
    const chosen = own?.responses?.[status] ?? (content[0] === 'application/json' ? examples().shared[status] : undefined);
    if (chosen) content[1].examples = chosen;
  }
}

const tagRank = (operations: Json): number =>
  Math.min(...Object.values(operations).map((operation) => {
    const tag = ((operation as { tags?: string[] }).tags ?? [])[0];
    const rank = TAGS.findIndex((t) => t.name === tag);
    return rank < 0 ? TAGS.length : rank;
  }));

/** @fastify/swagger's transformObject: the document as a reader gets it. */
export function finishDocument(object: { openapiObject: object } | { swaggerObject: object }): Json {
  const document = ('openapiObject' in object ? object.openapiObject : object.swaggerObject) as Json & { paths?: Record<string, Json> };
  const paths = document.paths ?? {};
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) addExamples(`${method.toUpperCase()} ${path}`, operation as Json);
  }
  // Paths by their tags' order (gateway operations first, admin last), in registration order within a tag.
  document.paths = Object.fromEntries(Object.entries(paths).map((entry, index) => ({ entry, index, rank: tagRank(entry[1]) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index).map(({ entry }) => entry));
  document.tags = TAGS;
  escapeDescriptions(document);
  return document;
}
