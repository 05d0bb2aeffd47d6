import assert from 'node:assert/strict';
import { join } from 'node:path';
import { LiveStreams } from '../../src/controller/console/live.ts';
import { readPortalReport } from '../../src/controller/portal-reports.ts';
import { Backoff } from '../../src/node/backoff.ts';
import { enrollWithTicket } from '../../src/node/enrollment.ts';
import type { StoredIdentity } from '../../src/node/identity-store.ts';
import { createLogger } from '../../src/node/logger.ts';
import { reportPortals } from '../../src/node/portal-reporter.ts';
import { StandingChannel } from '../../src/node/standing-channel.ts';
import { callController, controllerTarget } from '../../src/wire/control-channel.ts';
import type { ControllerOperations, PortalReport } from '../../src/wire/protocol.ts';
import { createWorld, type World } from '../support/portal-world.ts';

const as = (identity: StoredIdentity) => ({ key: identity.privateKey, certificate: identity.certificate });

/** One event of a stream: its name, data and id. */
interface Sent {
  readonly event: string;
  readonly data: string;
  readonly id: string | undefined;
}

/** A live stream as EventSource reads it, with a way to wait for the next event of a name. */
class Stream {
  private buffer = '';
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();

  constructor(readonly response: Response) {
    this.reader = response.body!.getReader();
  }

  async next(event: string, timeoutMs = 5000, matching: (data: string) => boolean = () => true): Promise<Sent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const lines = block.split('\n');
        const field = (name: string) =>
          lines.filter((line) => line.startsWith(`${name}: `)).map((line) => line.slice(name.length + 2));
        const sent = { event: field('event')[0] ?? 'message', data: field('data').join('\n'), id: field('id')[0] };
        if (sent.event === event && matching(sent.data)) return sent;
        continue;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no "${event}" event within ${timeoutMs} ms`);
      let timer: NodeJS.Timeout | undefined;
      const read = await Promise.race([
        this.reader.read(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no "${event}" event within ${timeoutMs} ms`)), left);
        }),
      ]).finally(() => clearTimeout(timer));
      if (read.done) throw new Error(`the stream ended before a "${event}" event`);
      this.buffer += this.decoder.decode(read.value, { stream: true });
    }
  }

  close(): Promise<void> {
    return this.reader.cancel();
  }
}

describe('console: live portals and the audit tail', () => {
  let world: World;
  let url: string;
  let cookie: string;
  const streams: Stream[] = [];

  const open = async (path: string, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(new URL(path, url), { headers: { cookie, ...headers } });
  const stream = async (path: string, headers: Record<string, string> = {}): Promise<Stream> => {
    const response = await open(path, headers);
    if (response.status !== 200) assert.fail(`${response.status}: ${await response.text()}`);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    const opened = new Stream(response);
    streams.push(opened);
    return opened;
  };
  const signIn = async (): Promise<string> => {
    const { link } = await callController(world.admin.record, 'console-link', {}, as(world.admin));
    const secret = link.split('/').at(-1)!;
    const answer = await fetch(new URL('/sign-in', url), {
      method: 'POST',
      body: new URLSearchParams({ secret }),
      headers: { origin: url },
      redirect: 'manual',
    });
    return (answer.headers.get('set-cookie') ?? '').split(';')[0]!;
  };

  before(async () => {
    world = await createWorld({ console: { host: '127.0.0.1', port: 0 } });
    url = world.controller.console!.url;
    cookie = await signIn();
  });
  afterEach(async () => {
    await Promise.all(streams.splice(0).map((each) => each.close().catch(() => undefined)));
  });
  after(() => world.close());

  it("streams a node's portals, their bytes as they move, and drops them when its connection ends", async () => {
    const node = await enrollWithTicket(join(world.dir, 'inlet'), await world.ticket({ attribute: 'db-inlet' }));
    const report: { -readonly [K in keyof PortalReport]: PortalReport[K] } = {
      part: 'inlet',
      name: 'db',
      relay: 'db',
      status: 'up',
      since: Date.now(),
      open: 1,
      total: 1,
      up: 1024,
      down: 10,
      peers: [{ node: 'n0123456789abcdef', path: 'relay controller', open: 1 }],
    };
    const control = new StandingChannel<ControllerOperations>({
      target: controllerTarget(node.record),
      credentials: () => as(node),
      logger: createLogger({ level: 'error', write: () => undefined }),
      backoff: new Backoff({}),
    });
    const stop = reportPortals(control, () => [{ ...report }], 100);
    control.start();
    try {
      const live = await stream('/live/portals');
      const first = await live.next('portals', 5000, (data) => data.includes(node.record.nodeId));
      assert.match(first.data, /<td data-bytes-up>1\.0 KiB<\/td>/);
      assert.match(first.data, /<code>n0123456789abcdef<\/code>: relay controller, 1/);
      report.up = 5 * 1024 * 1024;
      const moved = await live.next('portals', 5000, (data) => data.includes('5.0 MiB'));
      assert.match(moved.data, /<td data-bytes-up>5\.0 MiB<\/td>/);
      // The overview's first state is the same fragment.
      assert.match(await (await open('/')).text(), /<td data-bytes-up>5\.0 MiB<\/td>/);
      control.stop();
      await live.next('portals', 5000, (data) => !data.includes(node.record.nodeId));
    } finally {
      stop();
      control.stop();
    }
  });

  it('tails the audit trail after the last record the page showed, and misses none when reopened', async () => {
    const page = await (await open('/audit?since=')).text();
    const live = /data-live="([^"]+)"/.exec(page)?.[1]?.replaceAll('&amp;', '&');
    assert.ok(live, 'the audit page names its live tail');
    const tail = await stream(live);
    await world.ticket({ attribute: 'tailed' });
    const first = await tail.next('records');
    assert.match(first.data, /<td>ticket-issued<\/td>/);
    assert.ok(first.id, 'each batch carries where the stream is');
    await tail.close();
    // Reopened where it was (as EventSource does with Last-Event-ID): only what came since.
    await world.ticket({ attribute: 'tailed-again' });
    const again = await stream(live, { 'last-event-id': first.id });
    const next = await again.next('records');
    assert.match(next.data, /tailed-again/);
    assert.doesNotMatch(next.data, /tailed(?!-again)/, 'a record sent before is not sent again');
    // A Last-Event-ID that is not a place falls back to where the page said, not to the trail's start.
    const garbled = await stream(live.replace(/after=\d+/, `after=${first.id}`), { 'last-event-id': 'x1' });
    const fallen = await garbled.next('records');
    assert.match(fallen.data, /tailed-again/);
    assert.doesNotMatch(fallen.data, /project-created|tailed(?!-again)/);
  });

  it('ends a stream within a second or two once its session is signed out', async () => {
    const own = await signIn();
    const response = await fetch(new URL('/live/portals', url), { headers: { cookie: own } });
    const live = new Stream(response);
    streams.push(live);
    await live.next('portals');
    const out = await fetch(new URL('/sign-out', url), { method: 'POST', headers: { cookie: own, origin: url } });
    assert.equal(out.status, 200);
    const ended = await live.next('ended', 3000);
    assert.equal(ended.data, 'signed out');
  });

  it('refuses a seventh stream of one administrator, and frees its place when a stream closes', async () => {
    const held: Stream[] = [];
    // The streams of the tests before are let go as the server hears of their closes.
    for (let waited = 0; held.length < 6 && waited < 3000;) {
      const response = await open('/live/portals');
      if (response.status === 200) {
        const opened = new Stream(response);
        streams.push(opened);
        held.push(opened);
      } else {
        await response.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, 100));
        waited += 100;
      }
    }
    assert.equal(held.length, 6);
    const seventh = await open('/live/portals');
    assert.equal(seventh.status, 429);
    assert.match(await seventh.text(), /too many live views/);
    await held[0]!.close();
    // The server hears of the close, then the place is free.
    const deadline = Date.now() + 5000;
    let status = 0;
    while (Date.now() < deadline) {
      const retry = await open('/live/portals');
      status = retry.status;
      if (status === 200) {
        streams.push(new Stream(retry));
        break;
      }
      await retry.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(status, 200);
  });

  it('refuses a report of too many portals, and cuts what a report holds to its bounds', async () => {
    const node = await enrollWithTicket(join(world.dir, 'flood'), await world.ticket({ attribute: 'flood' }));
    const portal: PortalReport = {
      part: 'outlet',
      name: 'x'.repeat(5000),
      relay: 'db',
      status: 'up\u0007',
      since: Number.MAX_SAFE_INTEGER,
      open: Number.MAX_VALUE,
      total: 1.5,
      up: 1,
      down: 1,
      peers: Array.from({ length: 40 }, () => ({ node: 'n', path: 'direct', open: 1 })),
    };
    await assert.rejects(
      callController(node.record, 'portal-report', { portals: Array.from({ length: 33 }, () => portal) }, as(node)),
      (error: Error & { code?: string }) => error.code === 'BAD_REQUEST' && /33 portals/.test(error.message),
    );
    const kept = readPortalReport([portal])[0]!;
    assert.equal(kept.name.length, 64);
    assert.equal(kept.status, 'up\\u0007');
    assert.deepEqual([kept.since, kept.open, kept.total, kept.peers.length], [0, 0, 0, 16]);
  });

  it('counts streams per administrator, per project and in all', () => {
    const bounded = new LiveStreams({
      perAdministrator: 2,
      perProject: 3,
      total: 4,
      tickMs: 1000,
      keepAliveMs: 15_000,
      streamMs: 60_000,
    });
    const admin = (projectId: string, nodeId: string) => ({ projectId, nodeId });
    const a1 = bounded.take(admin('p1', 'a'));
    assert.ok(a1 && bounded.take(admin('p1', 'a')));
    assert.equal(bounded.take(admin('p1', 'a')), undefined, 'a third of one administrator');
    assert.ok(bounded.take(admin('p1', 'b')));
    assert.equal(bounded.take(admin('p1', 'c')), undefined, 'a fourth of one project');
    assert.ok(bounded.take(admin('p2', 'd')));
    assert.equal(bounded.take(admin('p3', 'e')), undefined, 'a fifth in all');
    a1();
    a1();
    assert.equal(bounded.open, 3, 'released once');
    assert.ok(bounded.take(admin('p1', 'c')));
  });
});
