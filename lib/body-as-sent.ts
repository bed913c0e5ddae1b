// The request journal shows a body as the client sent it. Every rewrite of a parsed body (members
// sent as null taken out, a member sent in another JSON type read as the schema's) keeps a copy of
// it first; the first rewrite's copy is the one kept.

/** Keeps the body as sent (request.bodyAsSent) before it is rewritten, unless a rewrite kept it already. */
export function keepBodyAsSent(request: { body: unknown; bodyAsSent: unknown }): void {
  request.bodyAsSent ??= structuredClone(request.body);
}
