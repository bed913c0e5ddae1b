// A JSON body's group at a path of member names: the request rewrites that read a member sent in
// another JSON type than the schema's (services/order/order-api.ts, services/session/checkout-initiate.ts).

/** The group (a JSON object, not a list) at `path` in `value`, if every step is one; undefined otherwise. */
export function groupAt(value: unknown, path: readonly string[]): Record<string, unknown> | undefined {
  let at = value;
  for (const step of path) {
    if (at === null || typeof at !== 'object' || Array.isArray(at)) return undefined;
    at = (at as Record<string, unknown>)[step];
  }
  return at !== null && typeof at === 'object' && !Array.isArray(at) ? at as Record<string, unknown> : undefined;
}
