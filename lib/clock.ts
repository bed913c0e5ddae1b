// The time now as ISO 8601 text (Date's toISOString), made once per millisecond: a command and the
// store's batch each ask for it, and Date#toISOString costs µs on a busy event loop (issue 17).
let lastMs = Number.NaN;
let lastText = '';

/** `new Date().toISOString()`, the same text, computed at most once per millisecond. */
export function isoNow(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastText = new Date(now).toISOString();
    lastMs = now;
  }
  return lastText;
}
