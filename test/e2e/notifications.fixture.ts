// Shared by the end-to-end notification tests (notifications.test.ts, notifications-cli.test.ts):
// the server's environment with a merchant notifying a local receiver, and the notification's
// events read from the SQLite file. Named *.fixture.ts so tap does not run it as a test file.
import { join } from 'node:path';
import { openStores } from '../../root.js';
import { streams } from '../../domain/events.js';
import { M1, MERCHANTS } from '../helpers/app.js';
import type { Test } from 'tap';
import type { Receiver } from '../helpers/receiver.js';
import type { RunningServer } from '../helpers/server.js';

export { BIN } from '../helpers/build.js';
export const SECRET = 'e2e-notification-secret-0123456789abcdef';

export function setUp(t: Test, receiver: Receiver) {
  const merchants = { merchants: MERCHANTS.merchants.map((m) => (m.id === M1.id ? { ...m, notifications: { url: `${receiver.origin}/webhook`, secret: SECRET } } : m)) };
  const dir = t.testdir({ 'merchants.json': JSON.stringify(merchants) });
  const db = join(dir, 'data', 'gateway.db');
  const env = {
    EVENT_STORE: `sqlite:${db}`, MERCHANTS_FILE: join(dir, 'merchants.json'),
    NOTIFICATION_TIMEOUT_MS: '1000', NOTIFICATION_RETRY_DELAY_MS: '50', NOTIFICATION_MAX_ATTEMPTS: '5', UNKNOWN_RESOLUTION_DELAY_MS: '200',
  };
  return { env, db };
}

/** Killed at teardown unless it has exited (stop() waits for an exit that a killed process already had). */
export const killAtEnd = (t: Test, server: RunningServer) =>
  t.teardown(() => (server.child.exitCode === null && server.child.signalCode === null ? server.stop('SIGKILL') : undefined));

export async function notificationEvents(db: string, id: string) {
  const opened = openStores({ kind: 'sqlite', path: db });
  try {
    return await opened.store.readStream(streams.notification(M1.id, id));
  } finally {
    await opened.close();
  }
}

