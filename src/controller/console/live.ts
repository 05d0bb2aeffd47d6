/**
 * The console's live streams (Server-Sent Events): the overview's portals and the audit trail's tail.
 * A stream looks again every second and sends only what changed; it checks its session as often, so a
 * sign-out or a revocation of its administrator ends it within a second. Bounded per session and in
 * all, and each lasts at most a few minutes: the browser opens it again, through the session check.
 */
import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { ConsoleEnv } from './context.ts';

export const liveLimits = {
  /** Streams one session holds open at once (a few tabs). */
  perSession: 4,
  /** Streams the console holds open at once, from every session. */
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

/** Counts the open streams, per session and in all. */
export class LiveStreams {
  private total = 0;
  private readonly bySession = new Map<string, number>();

  constructor(readonly limits: LiveLimits = liveLimits) {}

  /** A place for one more stream of `session`, released by the function returned; undefined past a bound. */
  take(session: string): (() => void) | undefined {
    const held = this.bySession.get(session) ?? 0;
    if (this.total >= this.limits.total || held >= this.limits.perSession) return undefined;
    this.total += 1;
    this.bySession.set(session, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total -= 1;
      const left = (this.bySession.get(session) ?? 1) - 1;
      if (left === 0) this.bySession.delete(session);
      else this.bySession.set(session, left);
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
  session: string,
  signedIn: () => Promise<boolean>,
  source: LiveSource,
): Response {
  const release = streams.take(session);
  if (!release) return c.text('too many live views are open: close some of the console tabs', 429);
  const { limits } = streams;
  c.header('cache-control', 'no-store');
  return streamSSE(
    c,
    async (stream) => {
      stream.onAbort(release);
      const endAt = Date.now() + limits.streamMs;
      let quietSince = Date.now();
      while (!stream.aborted && Date.now() < endAt) {
        if (!(await signedIn())) {
          await stream.writeSSE({ event: 'ended', data: 'signed out' });
          break;
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
      release();
    },
    async (_error: Error, stream: SSEStreamingApi) => {
      release();
      // The page keeps what it showed; the browser tries again.
      await stream.write(': ended\n\n').catch(() => undefined);
    },
  );
}
