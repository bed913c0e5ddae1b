// The time now as ISO 8601 text (Date's toISOString), made once per millisecond, and then without
// Date for the millisecond's next ones in the same minute: a command and the store's batch each
// ask for it, and Date#toISOString is slow enough to show in the pay benchmark (bench/README.md).
let lastMs = Number.NaN;
let lastText = '';
/** The start of the minute last formatted by Date (epoch ms), and its text up to the seconds. */
let minuteStart = Number.NaN;
let minutePrefix = '';

/**
 * `new Date(ms).toISOString()` for a whole number of ms since the epoch, the same text: within the
 * minute last formatted by Date, its first 17 characters (`YYYY-MM-DDTHH:MM:`) are kept and the
 * seconds and milliseconds written after them (JavaScript's time has no leap seconds: every UTC
 * minute is 60,000 ms from a multiple of 60,000).
 */
export function isoOf(ms: number): string {
  if (ms === lastMs) return lastText;
  lastMs = ms;
  const inMinute = ms - minuteStart;
  if (inMinute >= 0 && inMinute < 60_000) {
    const seconds = Math.floor(inMinute / 1000);
    const millis = inMinute - seconds * 1000;
    lastText = `${minutePrefix}${seconds < 10 ? '0' : ''}${seconds}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
  } else {
    lastText = new Date(ms).toISOString();
    // Years 0-9999 only (a longer text has a sign and six digits); beyond, always by Date.
    if (lastText.length === 24) {
      minuteStart = ms - (((ms % 60_000) + 60_000) % 60_000);
      minutePrefix = lastText.slice(0, 17);
    }
  }
  return lastText;
}

/** `new Date().toISOString()`, the same text, computed at most once per millisecond. */
export function isoNow(): string {
  return isoOf(Date.now());
}
