import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { createAuthority, type Authority } from '../../src/pki/authority.ts';
import {
  PeerRefused,
  acceptOutletChannel,
  openInletChannel,
  type Channel,
  type SessionCredentials,
} from '../../src/wire/e2e-session.ts';
import { sessionMember } from '../support/session-members.ts';

const projectId = 'p-verdicts';

const member = (authority: Authority, nodeId: string, attributes: string[]) =>
  sessionMember(authority, projectId, nodeId, attributes);

/** Both sides of the end-to-end handshake over one loopback connection: what each ends with. */
async function handshake(
  outlet: SessionCredentials,
  outletAllow: string,
  inlet: SessionCredentials,
  inletAllow: string,
): Promise<[PromiseSettledResult<Channel>, PromiseSettledResult<Channel>]> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const accepted = once(server, 'connection') as Promise<[Socket]>;
    const raw = connect({ host: '127.0.0.1', port: (server.address() as AddressInfo).port });
    const [served] = await accepted;
    const results = await Promise.allSettled([
      acceptOutletChannel(served, outlet, outletAllow, 5000),
      openInletChannel(raw, inlet, inletAllow, 'session', 5000),
    ]);
    for (const result of results) if (result.status === 'fulfilled') result.value.socket.destroy();
    return results;
  } finally {
    server.close();
  }
}

const refusal = (result: PromiseSettledResult<Channel>): string => {
  assert.equal(result.status, 'rejected', 'refused');
  const error = result.reason as PeerRefused;
  assert.ok(error instanceof PeerRefused, String(error));
  assert.equal(error.code, 'PEER_NOT_ALLOWED');
  return error.message;
};

describe('end-to-end verdicts: allow expressions after the mutual TLS handshake', () => {
  let authority: Authority;
  let outlet: SessionCredentials;
  const policy = 'team = "ops" and env in ["prod", "staging"]';

  before(() => {
    authority = createAuthority(projectId, new Date());
    outlet = member(authority, 'n-outlet', ['db-outlet']);
  });

  it("lets on an inlet the outlet's expression admits, and the outlet the inlet's name admits", async () => {
    const inlet = member(authority, 'n-prod', ['team=ops', 'env=prod']);
    const [outletSide, inletSide] = await handshake(outlet, policy, inlet, 'db-outlet');
    assert.equal(outletSide.status, 'fulfilled');
    assert.equal(inletSide.status, 'fulfilled');
    assert.deepEqual(outletSide.value.peer?.attributes, ['team=ops', 'env=prod']);
  });

  it('refuses on both sides an inlet the expression does not admit, naming the expression and attributes', async () => {
    const inlet = member(authority, 'n-dev', ['team=ops', 'env=dev']);
    const [outletSide, inletSide] = await handshake(outlet, policy, inlet, 'db-outlet');
    assert.equal(
      refusal(outletSide),
      'peer attribute not allowed: saw "team=ops", "env=dev", allow is (team = "ops" and env in ["prod", "staging"])',
    );
    assert.equal(
      refusal(inletSide),
      'the peer does not allow this node: it saw "team=ops", "env=dev", ' +
        'its allow is (team = "ops" and env in ["prod", "staging"])',
    );
  });

  it("refuses on both sides when the inlet's expression does not admit the outlet, or does not read", async () => {
    const inlet = member(authority, 'n-prod-2', ['team=ops', 'env=prod']);
    const [outletSide, inletSide] = await handshake(outlet, policy, inlet, 'db-outlet and not db-outlet');
    assert.match(
      refusal(inletSide),
      /^peer attribute not allowed: saw "db-outlet", allow is \(db-outlet and not db-outlet\)$/,
    );
    assert.match(refusal(outletSide), /^the peer does not allow this node: it saw "db-outlet"/);
    const [, unreadable] = await handshake(outlet, policy, inlet, 'db-outlet or');
    assert.match(refusal(unreadable), /allow is \(db-outlet or\)$/, 'deny by default');
  });
});
