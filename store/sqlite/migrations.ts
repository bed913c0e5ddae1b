// Upgrades of an events file written by an earlier tokengate, run once when the store opens; the
// file's `user_version` says which have run.
import type Database from 'better-sqlite3';
import { renamedStream } from '../../domain/events.js';

/** The upgrades, in order: the file's user_version is how many of them it has had. */
const UPGRADES: ReadonlyArray<(db: Database.Database) => void> = [
  // 1: stream names `<category>-<owner>-<id>` (ambiguous when a merchant id holds '-': TESTSHOP
  // and TESTSHOP-EU named the same stream) become `<category>-<owner>:<id>` (domain/events.ts
  // streams). The owner of each stream is the merchant or repository its events name.
  (db) => {
    const firsts = db.prepare<[], { stream: string; merchantId: unknown; repositoryId: unknown }>(
      "SELECT stream, json_extract(data, '$.merchantId') AS merchantId, json_extract(data, '$.repositoryId') AS repositoryId FROM events WHERE revision = 0").all();
    const rename = db.prepare<[string, string]>('UPDATE events SET stream = ? WHERE stream = ?');
    for (const { stream, merchantId, repositoryId } of firsts) {
      const renamed = renamedStream(stream, { merchantId, repositoryId });
      if (renamed !== undefined) rename.run(renamed, stream);
    }
  },
];

/**
 * Bring the file up to date: every upgrade it has not had, each in the transaction that records it
 * (an immediate one: of two processes opening an old file together, one upgrades, the other then
 * finds it done). A file newer than this code is refused: its streams may not be readable.
 */
export function upgradeEventsFile(db: Database.Database): void {
  const version = () => db.pragma('user_version', { simple: true }) as number;
  if (version() > UPGRADES.length) {
    throw new Error(`the events file was written by a newer tokengate (format ${version()}; this one reads up to ${UPGRADES.length})`);
  }
  if (version() === UPGRADES.length) return;
  db.transaction(() => {
    for (let done = version(); done < UPGRADES.length; done++) {
      UPGRADES[done]!(db);
      db.pragma(`user_version = ${done + 1}`);
    }
  }).immediate();
}
