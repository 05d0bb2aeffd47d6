/**
 * The console's live streams: the overview's portals as nodes report them, and the audit trail's
 * records as they are written (after the last one the page showed, through the page's filters).
 */
import type { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { auditExchangeVersion } from '../../wire/protocol/audit.ts';
import type { ConsoleAccess } from './access.ts';
import { queryOf, trailEnd } from './audit-routes.ts';
import type { ConsoleData, ConsoleEnv } from './context.ts';
import { liveStream, type LiveStreams } from './live.ts';
import { recordRows } from './pages/audit.ts';
import { livePortals } from './pages/portals.ts';

/** Records one tick of the tail sends at most: a burst arrives over a few seconds, not in one message. */
const recordsPerTick = 50;

export function liveRoutes(
  app: Hono<ConsoleEnv>,
  data: ConsoleData,
  access: ConsoleAccess,
  streams: LiveStreams,
  cookie: string,
): void {
  /** The request's session, looked up again each tick: ended by a sign-out or a revocation. */
  const sessionOf = (secret: string) => async () => (await access.session(secret)) !== undefined;

  app.get('/live/portals', (c) => {
    const secret = getCookie(c, cookie) ?? '';
    const { admin } = c.get('session');
    let last = '';
    return liveStream(c, streams, admin, sessionOf(secret), async () => {
      const fragment = String(await livePortals(data.portals(admin)));
      if (fragment === last) return [];
      last = fragment;
      return [{ event: 'portals', data: fragment }];
    });
  });

  app.get('/live/audit', (c) => {
    const secret = getCookie(c, cookie) ?? '';
    const { admin } = c.get('session');
    const query = queryOf({ since: '', member: c.req.query('member') ?? '', event: c.req.query('event') ?? '' });
    if (typeof query === 'string') return c.text(`${query}\n`, 400);
    // A browser that opens the stream again says where it was; else the page said where it ended.
    const seqOf = (text: string | undefined) => (text && /^\d{1,15}$/.test(text) ? Number(text) : undefined);
    let afterSeq = seqOf(c.req.header('last-event-id')) ?? seqOf(c.req.query('after'));
    return liveStream(c, streams, admin, sessionOf(secret), async () => {
      // Named nowhere: from the trail's end as it is now.
      afterSeq ??= (await data.audit(admin, { ...trailEnd, exchange: auditExchangeVersion })).head;
      const answer = await data.audit(admin, {
        ...query,
        afterSeq,
        limit: recordsPerTick,
        exchange: auditExchangeVersion,
      });
      const moved = answer.next > afterSeq;
      afterSeq = Math.max(afterSeq, answer.next);
      if (answer.records.length === 0) return [];
      return moved ? [{ event: 'records', data: String(await recordRows(answer.records)), id: String(afterSeq) }] : [];
    });
  });
}
