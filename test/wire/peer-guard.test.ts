import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { createAuthority, type Authority } from '../../src/pki/authority.ts';
import { PortalError } from '../../src/shared/errors.ts';
import {
  acceptOutletChannel,
  openInletChannel,
  PeerRevoked,
  type SessionCredentials,
} from '../../src/wire/e2e-session.ts';
import { PeerSockets, type GuardRefusal, type PeerGuard } from '../../src/wire/peer-guard.ts';
import { sessionMember } from '../support/session-members.ts';

const member = (authority: Authority, nodeId: string, attribute: string) =>
  sessionMember(authority, 'guarded', nodeId, [attribute]);

const codeOf = (error: unknown) => (error instanceof PortalError ? error.code : String(error));

describe('the peer guard: revoked peers refused in the verdicts, and cut once accepted', () => {
  let outlet: SessionCredentials;
  let inlet: SessionCredentials;
  let listener: Server;
  let port: number;
  /** What the outlet's guard says of the inlet, and what the outlet's side of each handshake gave. */
  let refusal: GuardRefusal | undefined;
  const outletSockets = new PeerSockets();
  let accepted: Promise<unknown>[] = [];

  before(async () => {
    const authority = createAuthority('guarded');
    outlet = member(authority, 'n00000000000000aa', 'db-outlet');
    inlet = member(authority, 'n00000000000000bb', 'db-inlet');
    const guard: PeerGuard = {
      refusal: () => refusal,
      track: (nodeId, socket) => outletSockets.track(nodeId, socket),
    };
    listener = createServer((raw: Socket) => {
      accepted.push(acceptOutletChannel(raw, { ...outlet, guard }, 'db-inlet').catch((error: unknown) => error));
    });
    listener.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    port = (listener.address() as { port: number }).port;
  });

  after(() => listener.close());

  const dial = () => {
    accepted = [];
    return openInletChannel(connect(port, '127.0.0.1'), inlet, 'db-outlet', 'session');
  };

  it('refuses a revoked peer on both sides with PEER_REVOKED, not as an attribute mismatch', async () => {
    refusal = 'revoked';
    await assert.rejects(dial(), (error: unknown) => {
      assert.equal(codeOf(error), 'PEER_REVOKED');
      assert.match((error as Error).message, /the peer refused this node: it was revoked/);
      // The inlet was refused: the outlet records the refusal, not the inlet.
      assert.ok(error instanceof PeerRevoked && !error.refusedByThisNode);
      assert.equal(error.peer, 'n00000000000000aa');
      return true;
    });
    const [outletSide] = await Promise.all(accepted);
    assert.equal(codeOf(outletSide), 'PEER_REVOKED');
    // The outlet refused the inlet, and names it.
    assert.ok(outletSide instanceof PeerRevoked && outletSide.refusedByThisNode);
    assert.equal(outletSide.peer, 'n00000000000000bb');
    assert.match(outletSide.message, /refused a peer that was revoked from the project \(n00000000000000bb\)/);
  });

  it('refuses every peer with REVOCATIONS_STALE while the list is too old', async () => {
    refusal = 'stale';
    await assert.rejects(dial(), (error: unknown) => codeOf(error) === 'REVOCATIONS_STALE');
    assert.equal(codeOf((await Promise.all(accepted))[0]), 'REVOCATIONS_STALE');
  });

  it('keeps an accepted peer by its node id, and cuts it at once when it is revoked', async () => {
    refusal = undefined;
    const channel = await dial();
    await Promise.all(accepted);
    assert.equal(outletSockets.count, 1);
    const closed = once(channel.socket, 'close');
    assert.equal(outletSockets.cut('n00000000000000aa'), 0, 'another peer: nothing cut');
    assert.equal(outletSockets.cut('n00000000000000bb'), 1);
    await closed;
    assert.equal(outletSockets.count, 0);
  });
});
