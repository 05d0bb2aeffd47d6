import assert from 'node:assert/strict';
import { DirectListener } from '../../src/node/direct-listener.ts';
import { InputError } from '../../src/shared/errors.ts';
import { defaultDirectAddress } from '../../src/node/portals.ts';
import { externalIpv4Addresses, listeningAddresses } from '../support/bound-addresses.ts';

describe("an inlet's direct path listener", () => {
  it('refuses a listen address that is not host:port as bad input, naming it', async () => {
    await assert.rejects(DirectListener.bind('0.0.0.0:99999'), (error: unknown) => {
      assert.ok(error instanceof InputError);
      assert.equal(error.code, 'DIRECT_ADDRESS');
      assert.equal(error.message, 'direct path address 0.0.0.0:99999: port 99999 is out of range (1 to 65535)');
      return true;
    });
  });

  it('by default listens on loopback and tells outlets that address alone', async () => {
    assert.equal(defaultDirectAddress, '127.0.0.1:0');
    const listener = await DirectListener.bind(defaultDirectAddress);
    try {
      const port = Number(listener.listening.split(':').at(-1));
      assert.deepEqual(await listeningAddresses(port), ['127.0.0.1']);
      assert.deepEqual(listener.addresses(), [`127.0.0.1:${port}`]);
    } finally {
      await listener.close();
    }
  });

  it('widens only where the configuration says: 0.0.0.0 listens on every address and tells outlets each', async () => {
    const listener = await DirectListener.bind('0.0.0.0:0');
    try {
      const port = Number(listener.listening.split(':').at(-1));
      assert.deepEqual(await listeningAddresses(port), ['0.0.0.0']);
      assert.deepEqual(listener.addresses(), [
        ...externalIpv4Addresses()
          .slice(0, 8)
          .map((host) => `${host}:${port}`),
        `127.0.0.1:${port}`,
      ]);
    } finally {
      await listener.close();
    }
  });
});
