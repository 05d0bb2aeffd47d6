import assert from 'node:assert/strict';
import { errorCodes, isErrorCode, knownCode } from '../../src/shared/error-codes.ts';

describe('error codes', () => {
  it('lists each code once', () => {
    assert.deepEqual(
      errorCodes.filter((code, index) => errorCodes.indexOf(code) !== index),
      [],
    );
  });

  it('spells every code in UPPER_SNAKE_CASE', () => {
    assert.deepEqual(
      errorCodes.filter((code) => !/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/.test(code)),
      [],
    );
  });

  it('takes a code from elsewhere only when it is in the list', () => {
    assert.equal(isErrorCode('TICKET_EXPIRED'), true);
    assert.equal(isErrorCode('ticket_expired'), false);
    assert.equal(isErrorCode('SOMETHING_NEW'), false);
    assert.equal(isErrorCode(42), false);
    assert.equal(knownCode('NOT_A_MEMBER', 'CONTROLLER_ERROR'), 'NOT_A_MEMBER');
    assert.equal(knownCode('SOMETHING_NEW', 'CONTROLLER_ERROR'), 'CONTROLLER_ERROR');
    assert.equal(knownCode(undefined, 'CONTROLLER_ERROR'), 'CONTROLLER_ERROR');
  });
});
