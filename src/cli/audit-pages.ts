/**
 * The pages of an audit trail, read on one connection to the controller: the next page is asked for as
 * soon as one arrives, so the controller reads while this side checks or prints, and at most two pages
 * are held at once whatever the trail's length.
 */
import type { ControlChannel } from '../wire/control-channel.ts';
import { auditExchangeVersion, type AuditPage, type AuditQuery } from '../wire/protocol/audit.ts';

/** Every page of `query` from `query.afterSeq` on, in order. */
export async function* auditPages(channel: ControlChannel, query: AuditQuery): AsyncGenerator<AuditPage> {
  const ask = (afterSeq: number) => {
    const asked = channel.request('audit', { ...query, exchange: auditExchangeVersion, afterSeq });
    // Held while the page before is handled: a failure is thrown when it is awaited, not as unhandled.
    asked.catch(() => undefined);
    return asked;
  };
  let pending = ask(query.afterSeq);
  for (;;) {
    const page = await pending;
    if (page.more) pending = ask(page.next);
    yield page;
    if (!page.more) return;
  }
}

/**
 * Progress on a terminal: one line on stderr, rewritten at most every `everyMs`; nothing when stderr is
 * no terminal (a pipe, a log).
 */
export function progressLine(everyMs = 250): { show(text: string): void; done(): void } {
  const terminal = process.stderr.isTTY === true;
  let shownAt = 0;
  let shown = false;
  return {
    show(text) {
      const now = Date.now();
      if (!terminal || now - shownAt < everyMs) return;
      shownAt = now;
      shown = true;
      process.stderr.write(`\r\x1b[2K${text}`);
    },
    done() {
      if (shown) process.stderr.write('\r\x1b[2K');
    },
  };
}
