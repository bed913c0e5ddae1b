import t from 'tap';
import { luhnValid } from '../../domain/card.js';

t.test('Luhn accepts the test cards and refuses a changed digit', async (t) => {
  t.ok(luhnValid('5123450000000008'));
  t.notOk(luhnValid('5123450000000009'));
});
