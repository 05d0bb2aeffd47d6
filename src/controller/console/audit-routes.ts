/**
 * The audit section's routes: the records a filter chooses (the last of them on the page, all of them
 * in the export), and a verification of the whole chain, hashes and signatures, run by the controller
 * as `portal project audit --verify` runs it.
 */
import type { Context, Hono } from 'hono';
import { auditPublicKey } from '../../shared/audit-signature.ts';
import { describeBreak, TrailCheck } from '../../shared/audit-verify.ts';
import { durationRanges, readDuration } from '../../shared/duration.ts';
import {
  auditExchangeVersion,
  auditLimits,
  isAuditEventKind,
  type AuditPage,
  type AuditQuery,
  type AuditRecordWire,
} from '../../wire/protocol/audit.ts';
import type { ConsoleData, ConsoleEnv } from './context.ts';
import { auditPage, verification, type AuditFilters } from './pages/audit.ts';
import { page, type Html } from './pages/layout.ts';

type Page = Context<ConsoleEnv>;

/** A query that reads nothing: its answer says where the trail ends. */
export const trailEnd = { afterSeq: Number.MAX_SAFE_INTEGER, limit: 1, since: 0 } as const;

/** Records the page shows at most: the last of those the filters choose. */
const shownRecords = 200;
const memberId = /^[an][0-9a-f]{16}$/;

const shown = (c: Page, title: string, body: Html, status: 200 | 400 = 200) =>
  c.html(page(title, body, { admin: c.get('session').admin.nodeId, current: '/audit' }), status);

export function auditRoutes(app: Hono<ConsoleEnv>, data: ConsoleData): void {
  app.get('/audit', async (c) => {
    const filters = filtersOf(c);
    const query = queryOf(filters);
    if (typeof query === 'string') return shown(c, 'Audit trail', auditPage(filters, [], 0, query), 400);
    // The live tail starts where the trail ended before the page read it, or where the reading stopped if
    // later: a record written while the page was read is shown once, by the page or by the tail.
    const headBefore = (await data.audit(c.get('session').admin, { ...trailEnd, exchange: auditExchangeVersion })).head;
    const last: AuditRecordWire[] = [];
    let matched = 0;
    let readTo = 0;
    for await (const answer of answers(data, c, { ...query, afterSeq: 0, limit: auditLimits.pageRecords })) {
      matched += answer.records.length;
      readTo = Math.max(readTo, answer.next);
      last.push(...answer.records);
      last.splice(0, Math.max(0, last.length - shownRecords));
    }
    const after = String(Math.max(headBefore, readTo));
    const tail = new URLSearchParams({ after, member: filters.member, event: filters.event });
    const live = `/live/audit?${tail}`;
    return shown(c, 'Audit trail', auditPage(filters, last, matched, undefined, live));
  });

  app.get('/audit.jsonl', async (c) => {
    const query = queryOf(filtersOf(c));
    if (typeof query === 'string') return c.text(`${query}\n`, 400);
    const lines: string[] = [];
    for await (const records of pages(data, c, query)) for (const record of records) lines.push(JSON.stringify(record));
    c.header('content-disposition', 'attachment; filename="audit.jsonl"');
    return c.body(lines.map((line) => `${line}\n`).join(''), 200, {
      'content-type': 'application/jsonl; charset=utf-8',
    });
  });

  app.get('/audit/verify', async (c) => {
    let check: TrailCheck | undefined;
    let last: AuditPage | undefined;
    const everything = { afterSeq: 0, limit: auditLimits.pageRecords, since: 0 };
    for await (const answer of answers(data, c, everything)) {
      const key = answer.key === null ? undefined : auditPublicKey(answer.key);
      check ??= new TrailCheck(key ? { key } : {});
      const broken = check.page(answer.records);
      if (broken) return shown(c, 'Audit trail: broken', verification(false, `Broken: ${describeBreak(broken)}.`));
      last = answer;
    }
    const broken = check && last ? check.finish(last.head) : undefined;
    if (broken) return shown(c, 'Audit trail: broken', verification(false, `Broken: ${describeBreak(broken)}.`));
    const records = check?.records ?? 0;
    const signed =
      check?.signedFrom === undefined ? 'no record is signed' : `signed from record ${check.signedFrom} on`;
    const line =
      records === 0
        ? 'The audit trail is whole: it holds no record yet.'
        : `The audit trail is whole: ${records} records, ${signed}, the last one's hash ${check?.cursor.hash}.`;
    return shown(c, 'Audit trail: verified', verification(true, line));
  });
}

function filtersOf(c: Page): AuditFilters {
  return {
    since: c.req.query('since') ?? '24h',
    member: c.req.query('member') ?? '',
    event: c.req.query('event') ?? '',
  };
}

/** The query the filters ask, or what is wrong with them. */
export function queryOf(filters: AuditFilters): Omit<AuditQuery, 'afterSeq' | 'limit'> | string {
  let since = 0;
  if (filters.since.trim() !== '') {
    const read = readDuration(filters.since.trim(), durationRanges.auditSince);
    if (!read.ok) return `Since: ${filters.since} ${read.reason}; give such as 1h or 7d, or nothing for all.`;
    since = Date.now() - read.ms;
  }
  if (filters.member !== '' && !memberId.test(filters.member))
    return `Member: ${filters.member} is not a member id such as n0123456789abcdef.`;
  if (filters.event !== '' && !isAuditEventKind(filters.event))
    return `Kind: ${filters.event} is not a kind of record.`;
  return {
    since,
    ...(filters.member ? { member: filters.member } : {}),
    ...(filters.event ? { event: filters.event } : {}),
  };
}

async function* pages(data: ConsoleData, c: Page, query: Omit<AuditQuery, 'afterSeq' | 'limit'>) {
  for await (const answer of answers(data, c, { ...query, afterSeq: 0, limit: auditLimits.pageRecords }))
    yield answer.records;
}

/** Every page of the trail the query chooses, oldest first, as `portal project audit` reads them. */
async function* answers(data: ConsoleData, c: Page, query: AuditQuery): AsyncGenerator<AuditPage> {
  let afterSeq = query.afterSeq;
  for (;;) {
    const answer = await data.audit(c.get('session').admin, { ...query, afterSeq, exchange: auditExchangeVersion });
    yield answer;
    if (!answer.more || answer.next <= afterSeq) return;
    afterSeq = answer.next;
  }
}
