// Who may open the admin API and the timeline page (routes/admin.ts): ADMIN_PASSWORD as config.ts
// read it, checked for length; unset, a password generated for the run on a loopback HOST, and
// nobody elsewhere.

/**
 * ADMIN_PASSWORD opens the whole event log, every merchant's: at least this many characters
 * (the merchants' API passwords need 32, merchants.ts). With the per-credential lock of
 * AUTH_FAILURE_LIMIT guesses a minute, 16 random characters are out of reach of guessing.
 */
export const ADMIN_PASSWORD_MIN_LENGTH = 16;

/** Why an admin password is refused (its length only: the password itself is never quoted). */
export function adminPasswordProblem(password: string): string | undefined {
  const length = [...password].length;
  return length < ADMIN_PASSWORD_MIN_LENGTH
    ? `ADMIN_PASSWORD is too short (${length} characters): it needs at least ${ADMIN_PASSWORD_MIN_LENGTH}, or leave it unset (on a loopback HOST one is then generated at start; elsewhere the admin API is disabled)`
    : undefined;
}

/**
 * HOST values only this machine can reach: `localhost`, 127.0.0.0/8 and ::1. `0.0.0.0`, `::` and
 * every other address can be reached from elsewhere. (`localhost` is taken at its word, as
 * RFC 6761 asks of name resolution; Node's own lookup answers the loopback addresses for it.)
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const v4 = /^(?:::ffff:)?(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return v4 !== null && v4.slice(1).every((part) => Number(part) <= 255) && v4[1] === '127';
}

/** Who may open the timeline: with a password (set, or generated for this run), or nobody. */
export type AdminAccess =
  | { state: 'open'; password: string; generated: boolean }
  | { state: 'closed' };

/**
 * The admin default. ADMIN_PASSWORD set: that password, on any HOST. Unset on a loopback HOST:
 * a random password generated at start (`generate`), printed in the start-up block (startup.ts).
 * Unset elsewhere: closed, as the timeline shows every merchant's events to whoever opens it.
 *
 * Why a generated password rather than an open page on loopback: any web page the developer's
 * browser opens can make it request http://127.0.0.1:8080 (CSRF), and with DNS rebinding
 * (evil.example re-resolved to 127.0.0.1) also read the answers, as the same origin. A password
 * that only the terminal has shown defeats both (the attacker's page never has it, and the
 * browser does not send credentials cached for 127.0.0.1 to evil.example); a Host-header check
 * would defeat rebinding only, and the admin API's answers are the whole event log. A person
 * pays one copy-paste; the wrong-password lock (AUTH_FAILURE_LIMIT) covers it like any other.
 */
export function adminAccess(config: { host: string; adminPassword: string | undefined }, generate: () => string): AdminAccess {
  if (config.adminPassword !== undefined) return { state: 'open', password: config.adminPassword, generated: false };
  if (isLoopbackHost(config.host)) return { state: 'open', password: generate(), generated: true };
  return { state: 'closed' };
}
