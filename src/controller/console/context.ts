/** What the console's routes are given: the controller's answers, and the session of the request. */
import type { PeerIdentity } from '../../pki/identity.ts';
import type { MemberInfo, ProjectInfo, RelayEntry } from '../../wire/protocol.ts';
import type { Revocation } from '../revocations.ts';
import type { ConsoleSession } from './access.ts';

/** What the pages show, read from the controller for the session's administrator. */
export interface ConsoleData {
  project(admin: PeerIdentity): Promise<ProjectInfo>;
  members(admin: PeerIdentity): Promise<MemberInfo[]>;
  relays(admin: PeerIdentity): RelayEntry[];
  /** Takes a member out, as `portal project revoke` does (its connections cut, every holder told). */
  revoke(admin: PeerIdentity, member: string, reason: string): Promise<Revocation>;
}

/** A signed-in request carries its session. */
export type ConsoleEnv = { Variables: { session: ConsoleSession } };
