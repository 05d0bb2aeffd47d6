import assert from 'node:assert/strict';
import { DirectListener } from '../../src/node/direct-listener.ts';
import { InputError } from '../../src/shared/errors.ts';

describe("an inlet's direct path listener", () => {
  it('refuses a listen address that is not host:port as bad input, naming it', async () => {
    await assert.rejects(DirectListener.bind('0.0.0.0:99999'), (error: unknown) => {
      assert.ok(error instanceof InputError);
      assert.equal(error.code, 'DIRECT_ADDRESS');
      assert.equal(error.message, 'direct path address 0.0.0.0:99999: port 99999 is out of range (1 to 65535)');
      return true;
    });
  });
});
