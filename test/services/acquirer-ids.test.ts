// The acquirer's references of a transaction: derived from its ids (the same ids, the same
// references, every time), in the formats of the answers, and never holding a number the request
// sent (no three digits in a row: no security code, no run of a card number's digits).
import fc from 'fast-check';
import t from 'tap';
import { acquirerIds, transactionReferences } from '../../services/order/acquirer-ids.js';

const id = fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.stringMatching(/^[0-9]{1,40}$/), fc.uuid());
const securityCode = fc.stringMatching(/^[0-9]{3,4}$/);
const fields = (r: ReturnType<typeof transactionReferences>) => [r.authorizationCode, r.receipt, r.stan, r.acquirerTransactionId];

t.test('formats: 6, 12 and 6 characters, every third a letter; 20 upper-case hexadecimal digits', async () => {
  fc.assert(fc.property(id, id, id, (m, o, x) => {
    const r = transactionReferences(m, o, x);
    return /^([0-9]{2}[B-DF-HJ-NP-TV-XZ]){2}$/.test(r.authorizationCode) && /^([0-9]{2}[B-DF-HJ-NP-TV-XZ]){4}$/.test(r.receipt) &&
      /^([0-9]{2}[B-DF-HJ-NP-TV-XZ]){2}$/.test(r.stan) && /^([0-9A-F]{2}[A-F]){6}[0-9A-F]{2}$/.test(r.acquirerTransactionId);
  }), { numRuns: 2_000 });
});

t.test('the same ids give the same references; other ids others', async (t) => {
  fc.assert(fc.property(id, id, id, (m, o, x) => JSON.stringify(transactionReferences(m, o, x)) === JSON.stringify(transactionReferences(m, o, x))), { numRuns: 500 });
  const a = transactionReferences('TESTMERCHANT01', '10000000001', '1');
  for (const other of [transactionReferences('TESTMERCHANT02', '10000000001', '1'), transactionReferences('TESTMERCHANT01', '10000000002', '1'),
    transactionReferences('TESTMERCHANT01', '10000000001', '2'), transactionReferences('TESTMERCHANT0', '110000000001', '1')]) {
    t.not(other.receipt, a.receipt, 'another transaction, another receipt');
  }
  t.strictSame(acquirerIds(a, '2026-11-25T12:00:00.000Z'), { ...a, batch: 20261125 }, 'the batch of the day beside them');
});

t.test('no reference holds the security code, or any three digits in a row, whatever the ids', async () => {
  fc.assert(fc.property(id, id, id, securityCode, (m, o, x, code) => {
    for (const field of fields(transactionReferences(m, o, x))) {
      if (field.includes(code) || /[0-9]{3}/.test(field)) return false;
    }
    return true;
  }), { numRuns: 20_000 });
});
