/**
 * Who may use the web console: an administrator signs in with a one-time link (`portal console`, valid
 * minutes, used once) and the browser then holds a session cookie that expires, ends when the
 * administrator signs out, and ends at once when the administrator is revoked. Links and sessions are
 * kept in the store by the hash of their secret, so a stolen store signs nobody in, and any controller
 * replica serves a session another signed in.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { PeerIdentity } from '../../pki/identity.ts';
import { identityOfRow } from '../member-identity.ts';
import { requireAdmin } from '../projects.ts';
import type { Store } from '../store/open.ts';
import { consoleLimits } from './limits.ts';

const digest = (secret: string) => createHash('sha256').update(secret).digest('hex');
const newSecret = () => randomBytes(32).toString('base64url');
/** What a link's or a cookie's secret looks like: anything else is refused before the store is asked. */
const secretShape = /^[A-Za-z0-9_-]{43}$/;

/** A session, as a request carries it: the administrator it acts for. */
export interface ConsoleSession {
  readonly admin: PeerIdentity;
  readonly expiresAt: number;
}

export interface ConsoleAccessOptions {
  readonly store: Store;
  /** @default consoleLimits.linkMs */
  readonly linkMs?: number;
  /** @default consoleLimits.sessionMs */
  readonly sessionMs?: number;
}

/** What one administrator holds at once, of links and of sessions (consoleLimits). */
const kept = { links: consoleLimits.linksPerAdministrator, sessions: consoleLimits.sessionsPerAdministrator };

export class ConsoleAccess {
  constructor(private readonly options: ConsoleAccessOptions) {}

  /** A new one-time sign-in secret for `admin`; its hash alone is kept. */
  async issueLink(admin: PeerIdentity, now = Date.now()): Promise<{ secret: string; expiresAt: number }> {
    requireAdmin(admin);
    return this.keepNew('console_links', admin, now, this.options.linkMs ?? consoleLimits.linkMs, kept.links);
  }

  /**
   * Uses a link: at most once, before it expires, for an administrator still a member. Returns the new
   * session's cookie secret, or undefined (the reason is not told to whoever holds the link).
   */
  async signIn(linkSecret: string, now = Date.now()): Promise<{ secret: string; session: ConsoleSession } | undefined> {
    if (!secretShape.test(linkSecret)) return undefined;
    // Taken in one statement: of two requests with the same link, one alone updates the row.
    const used = await this.options.store
      .updateTable('console_links')
      .set({ used_at: now })
      .where('secret_sha256', '=', digest(linkSecret))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning(['project_id', 'member'])
      .executeTakeFirst();
    if (!used) return undefined;
    const admin = await this.administrator(used.project_id, used.member);
    if (!admin) return undefined;
    const { secret, expiresAt } = await this.keepNew(
      'console_sessions',
      admin,
      now,
      this.options.sessionMs ?? consoleLimits.sessionMs,
      kept.sessions,
    );
    return { secret, session: { admin, expiresAt } };
  }

  /** The session a cookie's secret names, if it is current and its administrator is still a member. */
  async session(cookieSecret: string | undefined, now = Date.now()): Promise<ConsoleSession | undefined> {
    if (cookieSecret === undefined || !secretShape.test(cookieSecret)) return undefined;
    const row = await this.options.store
      .selectFrom('console_sessions')
      .select(['project_id', 'member', 'expires_at'])
      .where('secret_sha256', '=', digest(cookieSecret))
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (!row) return undefined;
    const admin = await this.administrator(row.project_id, row.member);
    return admin ? { admin, expiresAt: Number(row.expires_at) } : undefined;
  }

  /** Ends the session a cookie's secret names. */
  async signOut(cookieSecret: string): Promise<void> {
    if (!secretShape.test(cookieSecret)) return;
    await this.options.store.deleteFrom('console_sessions').where('secret_sha256', '=', digest(cookieSecret)).execute();
  }

  /**
   * A new secret for `admin` in `table`, valid `lifetimeMs`, kept by its hash alone. Rows of the past
   * are forgotten as new ones are made: each table holds only what is current.
   */
  private async keepNew(
    table: 'console_links' | 'console_sessions',
    admin: PeerIdentity,
    now: number,
    lifetimeMs: number,
    most: number,
  ): Promise<{ secret: string; expiresAt: number }> {
    const secret = newSecret();
    const expiresAt = now + lifetimeMs;
    await this.options.store.transaction().execute(async (trx) => {
      await trx.deleteFrom(table).where('expires_at', '<', now).execute();
      await trx
        .insertInto(table)
        .values({
          secret_sha256: digest(secret),
          project_id: admin.projectId,
          member: admin.nodeId,
          created_at: now,
          expires_at: expiresAt,
        })
        .execute();
      // An administrator's script that asks again and again keeps the newest few, not a growing table.
      const held = await trx
        .selectFrom(table)
        .select('secret_sha256')
        .where('project_id', '=', admin.projectId)
        .where('member', '=', admin.nodeId)
        .orderBy('created_at', 'desc')
        .orderBy('expires_at', 'desc')
        .execute();
      const kept = digest(secret);
      const beyond = held
        .map((row) => row.secret_sha256)
        .filter((hash) => hash !== kept)
        .slice(most - 1);
      if (beyond.length > 0) await trx.deleteFrom(table).where('secret_sha256', 'in', beyond).execute();
    });
    return { secret, expiresAt };
  }

  /** The administrator's identity as the store holds it now; undefined once revoked or no administrator. */
  private async administrator(projectId: string, nodeId: string): Promise<PeerIdentity | undefined> {
    const row = await this.options.store
      .selectFrom('members')
      .leftJoin('revocations', 'revocations.node_id', 'members.node_id')
      .select([
        'members.attribute',
        'members.attributes',
        'members.relay',
        'members.tls',
        'members.admin',
        'members.relay_node',
        'revocations.revoked_at',
      ])
      .where('members.project_id', '=', projectId)
      .where('members.node_id', '=', nodeId)
      .executeTakeFirst();
    if (!row || row.admin !== 1 || row.revoked_at !== null) return undefined;
    return identityOfRow(projectId, nodeId, row);
  }
}
