// The API reference's document, finished for a reader (plugins/openapi.ts registers it): the
// gateway's operations first, in the order of the tags below, the admin routes in their own tag
// at the end; a description of everything tokengate serves; placeholders such as
// `merchant.<merchantId>` kept out of the markdown's HTML; and, for every operation, the
// examples of schemas/examples.json: real answers of tokengate to the requests shown, checked
// against the schemas and replayed by test/http/openapi.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RouteOptions } from 'fastify';
import { PROJECT_ROOT } from '../config.js';

export const TAGS = [
  { name: 'token', description: 'Create or Update Token (version 100 and every version from 50), Tokenize with a merchant-supplied token id, Retrieve and Delete Token' },
  { name: 'pay', description: 'Pay with token (version 3), and its Retrieve Order and Retrieve Transaction' },
  { name: 'order', description: 'The order API of versions 50-100: PAY, AUTHORIZE, CAPTURE, REFUND, VOID and VERIFY; Retrieve Order and Retrieve Transaction' },
  { name: 'session', description: 'Create, Update and Retrieve Session (versions 50-100)' },
  { name: 'gateway', description: 'Check Gateway: no authentication' },
  { name: 'admin', description: "tokengate's own: the timeline, histories and Prometheus metrics. User admin, password ADMIN_PASSWORD (never a merchant's credentials)" },
];

export const DESCRIPTION = [
  "A faithful, event-sourced sandbox of the Mastercard Gateway's card-token and order API: the real gateway's paths, authentication, fields, bounds, status codes and error bodies.",
  '',
  '- **Create or Update Token** (`POST .../token`), **Tokenize** (`PUT .../token/{tokenid}`, merchant-supplied token ids), **Retrieve Token** and **Delete Token**',
  '- **Pay with token** (version 3) and its **Retrieve Order** and **Retrieve Transaction**',
  '- the **order API** of versions 50-100: **PAY**, **AUTHORIZE**, **CAPTURE**, **REFUND**, **VOID** and **VERIFY** with a token, a session or a card; **Retrieve Order** and **Retrieve Transaction**',
  '- **Create**, **Update** and **Retrieve Session** (versions 50-100)',
  '- **Check Gateway** (no authentication)',
  '',
  'Authentication: Basic, user `merchant.<merchantId>` and the API password (Pay with token and its version 3 retrievals: a blank user id and the API password), or a client certificate. ' +
  "Outcomes are chosen as the real test environment chooses them (the card's expiry, the security code, the street) and by documented triggers (docs/triggers.md); an identical repeat answers the recorded outcome, and records nothing. " +
  'A decline is HTTP 201 with `result` FAILURE; every refused request gets the gateway\'s error body with the field and the reason.',
  '',
  'The admin routes at the end (the timeline, the histories, `/metrics`) take user `admin` and ADMIN_PASSWORD.',
].join('\n');

/** Summaries of the admin routes that name none themselves. */
const ADMIN_SUMMARIES: Readonly<Record<string, string>> = {
  '/admin': 'The timeline page (a redirect)',
  '/admin/timeline': 'The timeline page',
  '/admin/history': "A stream's history page",
  '/admin/api/history': "A stream's history: each step with the state after it",
  '/admin/api/search': 'Find streams by order id, token, session id, transaction id or correlation id',
  '/admin/api/events': 'Events of the log, filtered and paged',
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

const jsonContent = (holder: unknown): Json | undefined => ((holder as { content?: Record<string, Json> } | undefined)?.content?.['application/json']);

/** The examples of one operation (`METHOD /path`) put in its request body and its responses. */
function addExamples(key: string, operation: Json): void {
  const own = examples().operations[key];
  const requestContent = jsonContent(operation.requestBody);
  if (requestContent && own?.requests) requestContent.examples = own.requests;
  for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, unknown>)) {
    const content = jsonContent(response);
    const chosen = own?.responses?.[status] ?? examples().shared[status];
    if (content && chosen) content.examples = chosen;
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
