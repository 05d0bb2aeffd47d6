/**
 * The console's live streams (Server-Sent Events): the overview's portals and the audit trail's tail.
 * A stream looks again every second and sends only what changed; it checks its session as often, so a
 * sign-out or a revocation of its administrator ends it within a second. Bounded per administrator,
 * per project and in all, and each lasts at most a few minutes: the browser opens it again, through the session check.
 */
import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { PeerIdentity } from '../../pki/identity.ts';
import type { ConsoleEnv } from './context.ts';

export const liveLimits = {
  /** Streams one administrator holds open at once, over all their sessions (a few tabs). */
  perAdministrator: 6,
  /** Streams one project's administrators hold open at once: one project cannot take every place. */
  perProject: 24,
  /** Streams the console holds open at once, from every project. */
  total: 64,
  /** How often a stream looks for news, and checks its session. */
  tickMs: 1000,
  /** A comment at least this often, so that the listener's idle timeout never cuts a quiet stream. */
  keepAliveMs: 15_000,
  /** How long one stream lasts before the browser opens it again. */
  streamMs: 5 * 60_000,
} as const;

export type LiveLimits = { readonly [K in keyof typeof liveLimits]: number };

/** One message of a stream: an event name and its data (HTML the pages escaped). */
export interface LiveMessage {
  readonly event: string;
  readonly data: string;
  /** Where the stream is: a browser that opens it again names it (Last-Event-ID) and misses nothing. */
  readonly id?: string;
}

/** What a stream does each tick: the messages to send now (none when nothing changed). */
export type LiveSource = () => Promise<readonly LiveMessage[]>;

/** Counts the open streams, per administrator, per project and in all. */
export class LiveStreams {
  private total = 0;
  private readonly held = new Map<string, number>();

  constructor(readonly limits: LiveLimits = liveLimits) {}

  /** A place for one more stream of `admin`, released by the function returned; undefined past a bound. */
  take(admin: Pick<PeerIdentity, 'projectId' | 'nodeId'>): (() => void) | undefined {
    const keys = [`admin ${admin.projectId} ${admin.nodeId}`, `project ${admin.projectId}`];
    const [ofAdmin, ofProject] = keys.map((key) => this.held.get(key) ?? 0) as [number, number];
    if (
      this.total >= this.limits.total ||
      ofAdmin >= this.limits.perAdministrator ||
      ofProject >= this.limits.perProject
    )
      return undefined;
    this.total += 1;
    for (const key of keys) this.held.set(key, (this.held.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total -= 1;
      for (const key of keys) {
        const left = (this.held.get(key) ?? 1) - 1;
        if (left === 0) this.held.delete(key);
        else this.held.set(key, left);
      }
    };
  }

  get open(): number {
    return this.total;
  }
}

/**
 * Answers `c` with a stream that sends what `source` returns each tick, while `signedIn` holds. 429
 * past a bound: the page keeps what it showed.
 */
export function liveStream(
  c: Context<ConsoleEnv>,
  streams: LiveStreams,
  admin: Pick<PeerIdentity, 'projectId' | 'nodeId'>,
  signedIn: () => Promise<boolean>,
  source: LiveSource,
): Response {
  const release = streams.take(admin);
  if (!release) return c.text('too many live views are open: close some of the console tabs', 429);
  const { limits } = streams;
  const response = streamSSE(c, async (stream) => {
    stream.onAbort(release);
    try {
      await follow(stream, limits, signedIn, source);
    } catch {
      // The store away for a moment, a client gone mid-write: the stream ends, the page keeps what it
      // showed, and the browser opens it again. Nothing of the error reaches the browser.
    } finally {
      release();
    }
  });
  response.headers.set('cache-control', 'no-store');
  return response;
}

/** Sends `source`'s news each tick while the session holds, the stream is open and its time lasts. */
async function follow(
  stream: SSEStreamingApi,
  limits: LiveLimits,
  signedIn: () => Promise<boolean>,
  source: LiveSource,
): Promise<void> {
  const endAt = Date.now() + limits.streamMs;
  let quietSince = Date.now();
  while (!stream.aborted && Date.now() < endAt) {
    if (!(await signedIn())) {
      await stream.writeSSE({ event: 'ended', data: 'signed out' });
      return;
    }
    const messages = await source();
    for (const message of messages) await stream.writeSSE(message);
    if (messages.length > 0) quietSince = Date.now();
    else if (Date.now() - quietSince >= limits.keepAliveMs) {
      await stream.write(': still here\n\n');
      quietSince = Date.now();
    }
    await stream.sleep(limits.tickMs);
  }
}
