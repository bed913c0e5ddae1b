// End to end on PostgreSQL with WORKERS=2 (a file of its own: three outages under load take most
// of a file's time on a busy machine): PostgreSQL stopped fast, stopped immediately and killed
// while clients pay; both workers stay up, answer 503 SERVER_BUSY and Check Gateway SHUTDOWN
// meanwhile, and serve again once it is back, nothing acknowledged lost (postgres-outage.fixture.ts;
// one process: postgres-outage.test.ts).
import t from 'tap';
import { postgresForFile } from '../helpers/postgres.js';
import { outagesUnderLoad } from './postgres-outage.fixture.js';

const server = postgresForFile(t);

if (server) {
  t.test('PostgreSQL stopped (fast, immediate) and killed under load, WORKERS=2: both workers stay up, 503 and SHUTDOWN meanwhile, nothing acknowledged lost',
    (t) => outagesUnderLoad(t, server.get(), 2));
}
