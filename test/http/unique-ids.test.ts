// The ids the tests send (test/helpers/ids.ts) never read as a card number: the gateway's own
// detector (lib/mask.ts: holdsCardNumber refuses a body value, maskCardNumbers masks one in logs
// and displays) finds none in many of them, where masking finds some in as many plain random UUIDs.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { holdsCardNumber, maskCardNumbers } from '../../lib/mask.js';
import { bodyProblem } from '../../plugins/request-values.js';
import { MAX_ID_LENGTH, uniqueId } from '../helpers/ids.js';

const COUNT = 20_000;

t.test('uniqueId: unique, at most 40 characters, never a card number', async (t) => {
  const seen = new Set<string>();
  const refused: string[] = [];
  const masked: string[] = [];
  for (let i = 0; i < COUNT; i++) {
    const id = uniqueId(i % 2 === 0 ? '' : '3ds-');
    seen.add(id);
    if (id.length > MAX_ID_LENGTH) t.fail(`${id}: longer than ${MAX_ID_LENGTH}`);
    if (holdsCardNumber(id)) refused.push(id);
    if (maskCardNumbers(id) !== id) masked.push(id);
  }
  t.equal(seen.size, COUNT, `${COUNT} ids, all different`);
  t.same(refused, [], 'none holds a card number (refused in a body)');
  t.same(masked, [], 'none is masked where the gateway shows it');
  t.equal(bodyProblem({ order: { id: uniqueId(), reference: uniqueId('ref-') }, transaction: { reference: uniqueId() } }), undefined, 'the gateway takes them in a body');
});

t.test('plain random UUIDs: never refused (a UUID is no card number), but masked in some where shown (the flake the helper removes)', async (t) => {
  let refused = 0;
  let masked = 0;
  for (let i = 0; i < COUNT; i++) {
    const id = randomUUID();
    if (holdsCardNumber(id)) refused++;
    if (maskCardNumbers(id) !== id) masked++;
  }
  t.equal(refused, 0, 'no random UUID is refused in a body');
  // About one in 360: some 55 expected; none at all would be a chance of about e^-55.
  t.ok(masked > 0, `${masked} of ${COUNT} random UUIDs are masked in logs and displays`);
});

t.test('a prefix that would make the id too long is refused', async (t) => {
  t.throws(() => uniqueId('order-'), /longer than 40/);
  t.equal(uniqueId('hco-').length, MAX_ID_LENGTH);
});
