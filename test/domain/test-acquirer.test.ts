import t from 'tap';
import fc from 'fast-check';
import {
  avsResponse, cardSecurityCodeResponse, EXPIRY_TABLE, expiryKey, isExpired, outcomeForExpiry,
} from '../../domain/order/test-acquirer.js';

const NOW = new Date('2026-11-21T12:00:00.000Z');

// The expiry table of gateway-facts.md: MM/YY, gatewayCode, result.
const FACTS_TABLE: ReadonlyArray<[number, number, string, string]> = [
  [1, 39, 'APPROVED', 'SUCCESS'],
  [5, 39, 'DECLINED', 'FAILURE'],
  [4, 27, 'EXPIRED_CARD', 'FAILURE'],
  [8, 28, 'TIMED_OUT', 'FAILURE'],
  [1, 37, 'ACQUIRER_SYSTEM_ERROR', 'FAILURE'],
  [2, 37, 'UNSPECIFIED_FAILURE', 'FAILURE'],
  [5, 37, 'UNKNOWN', 'UNKNOWN'],
];

t.test('every row of the expiry table', async (t) => {
  for (const [month, year, gatewayCode, result] of FACTS_TABLE) {
    const outcome = outcomeForExpiry({ month, year }, NOW);
    t.equal(outcome.gatewayCode, gatewayCode, `${month}/${year} gatewayCode`);
    t.equal(outcome.result, result, `${month}/${year} result`);
    t.match(outcome.acquirerCode, /^\w{1,2}$/, 'an acquirer code');
    t.ok(outcome.acquirerMessage.length > 0, 'an acquirer message');
  }
  t.equal(Object.keys(EXPIRY_TABLE).length, FACTS_TABLE.length, 'no extra rows');
  t.equal(outcomeForExpiry({ month: 1, year: 39 }, NOW).acquirerMessage, 'Approved', 'acquirerMessage of an approval');
});

t.test('distinct outcomes have distinct acquirer codes', async (t) => {
  const codes = FACTS_TABLE.map(([month, year]) => outcomeForExpiry({ month, year }, NOW).acquirerCode);
  t.equal(new Set(codes).size, codes.length, codes.join(','));
});

t.test('an expiry that is not in the table', async (t) => {
  t.test('in the past: EXPIRED_CARD', async (t) => {
    for (const [month, year] of [[10, 26], [1, 26], [12, 25], [11, 20], [6, 0]] as const) {
      const outcome = outcomeForExpiry({ month, year }, NOW);
      t.equal(outcome.gatewayCode, 'EXPIRED_CARD', `${month}/${year}`);
      t.equal(outcome.result, 'FAILURE');
    }
  });

  t.test('the current month is not expired (a card is valid through its month)', async (t) => {
    const outcome = outcomeForExpiry({ month: 11, year: 26 }, NOW);
    t.equal(outcome.gatewayCode, 'APPROVED');
    t.equal(outcome.result, 'SUCCESS');
    t.notOk(isExpired({ month: 11, year: 26 }, new Date('2026-11-30T23:59:59.999Z')), 'last instant of the month');
    t.ok(isExpired({ month: 11, year: 26 }, new Date('2026-12-01T00:00:00.000Z')), 'first instant of the next month');
    t.notOk(isExpired({ month: 11, year: 26 }, new Date('2026-11-01T00:00:00.000Z')), 'first instant of the month');
  });

  t.test('any other future expiry: APPROVED', async (t) => {
    for (const [month, year] of [[12, 26], [1, 27], [3, 27], [5, 27], [12, 30], [2, 39], [1, 38], [12, 99]] as const) {
      const outcome = outcomeForExpiry({ month, year }, NOW);
      t.equal(outcome.gatewayCode, 'APPROVED', `${month}/${year}`);
      t.equal(outcome.result, 'SUCCESS');
      t.equal(outcome.acquirerCode, '00');
    }
  });

  t.test("a command's ISO time decides as its Date does (read from the text, no Date made)", async (t) => {
    const time = fc.date({ min: new Date('0001-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true });
    const expiry = fc.record({ month: fc.integer({ min: 1, max: 12 }), year: fc.integer({ min: 0, max: 99 }) });
    fc.assert(fc.property(expiry, time, (e, now) => isExpired(e, now.toISOString()) === isExpired(e, now) &&
      outcomeForExpiry(e, now.toISOString()) === outcomeForExpiry(e, now)));
    t.notOk(isExpired({ month: 11, year: 26 }, '2026-11-30T23:59:59.999Z'), 'last instant of the month');
    t.ok(isExpired({ month: 11, year: 26 }, '2026-12-01T00:00:00.000Z'), 'first instant of the next month');
    // A text in another form (an expanded year) is read as a Date.
    t.notOk(isExpired({ month: 1, year: 27 }, '+002026-11-21T12:00:00.000Z'));
    t.ok(isExpired({ month: 1, year: 27 }, '+010000-01-01T00:00:00.000Z'));
  });

  t.test('isExpired compares years before months', async (t) => {
    t.ok(isExpired({ month: 12, year: 25 }, NOW), '12/25 is before 11/26');
    t.notOk(isExpired({ month: 1, year: 27 }, NOW), '01/27 is after 11/26');
    t.ok(isExpired({ month: 10, year: 26 }, NOW));
    t.notOk(isExpired({ month: 12, year: 26 }, NOW));
  });
});

t.test('expiryKey pads to MM/YY', async (t) => {
  t.equal(expiryKey({ month: 1, year: 39 }), '01/39');
  t.equal(expiryKey({ month: 12, year: 5 }), '12/05');
});

t.test('card security code', async (t) => {
  t.test('100 / 101 / 102', async (t) => {
    t.strictSame(cardSecurityCodeResponse('100', 'MASTERCARD'), { gatewayCode: 'MATCH', acquirerCode: 'M' });
    t.strictSame(cardSecurityCodeResponse('101', 'MASTERCARD'), { gatewayCode: 'NOT_PROCESSED', acquirerCode: 'P' });
    t.strictSame(cardSecurityCodeResponse('102', 'MASTERCARD'), { gatewayCode: 'NO_MATCH', acquirerCode: 'N' });
    t.equal(cardSecurityCodeResponse('102', 'VISA').gatewayCode, 'NO_MATCH');
    t.equal(cardSecurityCodeResponse('101', 'MAESTRO').gatewayCode, 'NOT_PROCESSED');
  });

  t.test('American Express: 1000 / 1010 / 1020', async (t) => {
    t.equal(cardSecurityCodeResponse('1000', 'AMEX').gatewayCode, 'MATCH');
    t.equal(cardSecurityCodeResponse('1010', 'AMEX').gatewayCode, 'NOT_PROCESSED');
    t.equal(cardSecurityCodeResponse('1020', 'AMEX').gatewayCode, 'NO_MATCH');
    // the three-digit triggers are not the Amex ones, and vice versa
    t.equal(cardSecurityCodeResponse('102', 'AMEX').gatewayCode, 'MATCH');
    t.equal(cardSecurityCodeResponse('101', 'AMEX').gatewayCode, 'MATCH');
    t.equal(cardSecurityCodeResponse('1020', 'VISA').gatewayCode, 'MATCH');
    t.equal(cardSecurityCodeResponse('1010', 'MASTERCARD').gatewayCode, 'MATCH');
  });

  t.test('none sent: NOT_PRESENT', async (t) => {
    t.equal(cardSecurityCodeResponse(undefined, 'MASTERCARD').gatewayCode, 'NOT_PRESENT');
    t.equal(cardSecurityCodeResponse(undefined, 'AMEX').gatewayCode, 'NOT_PRESENT');
  });

  t.test('UATP: NOT_SUPPORTED', async (t) => {
    t.equal(cardSecurityCodeResponse('100', 'UATP').gatewayCode, 'NOT_SUPPORTED');
    t.equal(cardSecurityCodeResponse('102', 'UATP').gatewayCode, 'NOT_SUPPORTED');
    t.equal(cardSecurityCodeResponse('123', 'UATP').gatewayCode, 'NOT_SUPPORTED');
  });

  t.test('any other code: MATCH', async (t) => {
    t.equal(cardSecurityCodeResponse('123', 'MASTERCARD').gatewayCode, 'MATCH');
    t.equal(cardSecurityCodeResponse('999', 'VISA').gatewayCode, 'MATCH');
    t.equal(cardSecurityCodeResponse('4321', 'AMEX').gatewayCode, 'MATCH');
  });
});

t.test('AVS by words in the street', async (t) => {
  const WORDS: ReadonlyArray<[string, string]> = [
    ['Alpha', 'ADDRESS_MATCH'],
    ['November', 'NO_MATCH'],
    ['Romeo', 'SERVICE_NOT_AVAILABLE_RETRY'],
    ['Sierra', 'SERVICE_NOT_SUPPORTED'],
    ['Uniform', 'NOT_AVAILABLE'],
    ['Whiskey', 'ZIP_MATCH'],
    ['X-ray', 'ADDRESS_ZIP_MATCH'],
    ['Kilo', 'NAME_MATCH'],
    ['Love', 'NAME_ZIP_MATCH'],
    ['Olive', 'NAME_ADDRESS_MATCH'],
    ['Zero', 'NOT_REQUESTED'],
  ];

  t.test('each of the 11 words, as given, inside a longer street, in any case', async (t) => {
    for (const [word, gatewayCode] of WORDS) {
      const variants = [
        `${word} St`,
        `12 ${word} St`,
        `12 ${word} St, Apt 4`,
        `12 ${word.toUpperCase()} ST`,
        `12 ${word.toLowerCase()} st`,
      ];
      for (const street of variants) {
        const avs = avsResponse(street);
        t.equal(avs?.gatewayCode, gatewayCode, street);
      }
    }
    t.equal(new Set(WORDS.map(([, code]) => code)).size, 11, 'eleven distinct codes');
  });

  t.test('acquirer code is the letter of the word', async (t) => {
    for (const [word] of WORDS) {
      const expected = word === 'Zero' ? '0' : word[0];
      t.equal(avsResponse(`1 ${word} St`)?.acquirerCode, expected, word);
    }
  });

  t.test('a street with none of the words: NOT_VERIFIED', async (t) => {
    for (const street of ['12 Main St', '1 Market Street', '', 'Alphabet St', 'Kilometre St']) {
      t.equal(avsResponse(street)?.gatewayCode, 'NOT_VERIFIED', JSON.stringify(street));
    }
  });

  t.test('no street: no AVS response', async (t) => {
    t.equal(avsResponse(undefined), undefined);
  });
});
