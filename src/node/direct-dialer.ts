/**
 * The outlet's side of the direct path: for each inlet that advertised one (through the controller),
 * dial it, so that the outlet still needs only outbound network. It keeps one direct session and as
 * many waiting streams as the inlet asked for; a dial that fails within its budget leaves the inlet on
 * the relay, and is tried again later, less and less often.
 */
import { connect, type Socket } from 'node:net';
import { parseHostPort, socketHost } from '../shared/address.ts';
import { directDialBudgetMs } from '../shared/limits.ts';
import { policyAdmits } from '../shared/policy.ts';
import { dataPathTuning, withSocketTuning } from '../shared/socket-tuning.ts';
import { directPreambleOf, type InletAdvert } from '../wire/protocol.ts';
import { Backoff } from './backoff.ts';
import { DirectDialBudget } from './direct-dial-budget.ts';
import { directRetryInitialMs, directRetryMaxMs, refillQuietMs } from './limits.ts';
import type { Logger } from './logger.ts';

/**
 * Whether an outlet of `relay` that allows `allow` dials an inlet's direct path: the inlet wants that
 * relay name, and the outlet's allow admits its attributes (from its certificate, as the controller
 * verified it), so that no other member of the project can make the outlet dial addresses of its choosing.
 */
export function outletDials(advert: InletAdvert | undefined, relay: string, allow: string): advert is InletAdvert {
  return advert?.via === relay && Array.isArray(advert.attributes) && policyAdmits(allow, advert.attributes);
}

export interface DirectDialerOptions {
  readonly logger: Logger;
  /**
   * Carries one connection dialled to `inlet` (the preamble sent): resolves once the inlet has made it
   * its session or a waiting stream, and the outlet counts it; rejects when it failed.
   */
  readonly carry: (raw: Socket, inlet: string) => Promise<void>;
  /** What the outlet holds with `inlet` now: a direct session, and streams waiting for their client. */
  readonly holding: (inlet: string) => { readonly session: boolean; readonly waiting: number };
  /** @default directRetryInitialMs to directRetryMaxMs */
  readonly retry?: { readonly initialMs: number; readonly maxMs: number };
  /** What an inlet's adverts may make the outlet dial. @default a DirectDialBudget of the node's limits */
  readonly budget?: DirectDialBudget;
}

interface InletState {
  advert: InletAdvert;
  dialing: boolean;
  readonly backoff: Backoff;
  timer: NodeJS.Timeout | undefined;
  /** A refill waiting for the inlet's clients to pause. */
  quiet: NodeJS.Timeout | undefined;
  failures: number;
  /** The failures in a row began with a dial right after the inlet's session ended. */
  afterLoss: boolean;
}

export class DirectDialer {
  private readonly inlets = new Map<string, InletState>();
  private readonly budget: DirectDialBudget;
  private stopped = false;

  constructor(private readonly options: DirectDialerOptions) {
    this.budget = options.budget ?? new DirectDialBudget();
  }

  /** An inlet's direct path, new or changed. */
  set(advert: InletAdvert): void {
    const known = this.inlets.get(advert.inlet);
    if (known) {
      known.advert = advert;
      known.backoff.reset();
      clearTimeout(known.timer);
      known.timer = undefined;
    }
    const state = known ?? {
      advert,
      dialing: false,
      backoff: new Backoff(this.options.retry ?? { initialMs: directRetryInitialMs, maxMs: directRetryMaxMs }),
      timer: undefined,
      quiet: undefined,
      failures: 0,
      afterLoss: false,
    };
    this.inlets.set(advert.inlet, state);
    this.maintain(state);
  }

  /** Whether it dials `inlet` now. */
  knows(inlet: string): boolean {
    return this.inlets.has(inlet);
  }

  /** The inlet withdrew its direct path. */
  gone(inlet: string): void {
    const state = this.inlets.get(inlet);
    if (!state) return;
    clearTimeout(state.timer);
    clearTimeout(state.quiet);
    this.inlets.delete(inlet);
  }

  /**
   * Something the outlet held with `inlet` ended or was used, or a client of the inlet's came: dial
   * again if it is short, at once when the session ended, else once the inlet's clients pause.
   */
  nudge(inlet: string, at: 'now' | 'when-quiet' = 'when-quiet'): void {
    const state = this.inlets.get(inlet);
    if (!state || state.timer) return;
    if (state.quiet && at === 'when-quiet') {
      // Once per client connection: the cheapest way to push the wait back.
      state.quiet.refresh();
      return;
    }
    clearTimeout(state.quiet);
    state.quiet = undefined;
    if (at === 'now') {
      if (state.failures === 0) state.afterLoss = true;
      this.maintain(state);
      return;
    }
    state.quiet = setTimeout(() => {
      state.quiet = undefined;
      this.maintain(state);
    }, refillQuietMs);
    state.quiet.unref();
  }

  describe(): { inlet: string; failures: number }[] {
    return [...this.inlets.values()].map((state) => ({ inlet: state.advert.inlet, failures: state.failures }));
  }

  stop(): void {
    this.stopped = true;
    for (const state of this.inlets.values()) {
      clearTimeout(state.timer);
      clearTimeout(state.quiet);
    }
    this.inlets.clear();
  }

  private maintain(state: InletState): void {
    if (this.stopped || state.dialing || this.inlets.get(state.advert.inlet) !== state) return;
    const held = this.options.holding(state.advert.inlet);
    if (held.session && held.waiting >= state.advert.warm) return;
    state.dialing = true;
    void this.dialOnce(state.advert).then(
      () => {
        state.dialing = false;
        state.failures = 0;
        state.afterLoss = false;
        state.backoff.reset();
        this.maintain(state);
      },
      (error: Error) => {
        state.dialing = false;
        // With a direct session held, the path works: the inlet declined one more stream (it had enough).
        if (this.options.holding(state.advert.inlet).session) {
          this.options.logger.debug(`outlet: inlet ${state.advert.inlet} declined a direct stream (${error.message})`);
          state.timer = setTimeout(() => {
            state.timer = undefined;
            this.maintain(state);
          }, state.backoff.next());
          state.timer.unref();
          return;
        }
        state.failures += 1;
        // The first failure and every tenth: the relay carries the inlet meanwhile. A dial right after
        // the inlet's session ended mostly finds the inlet stopping: said only when the next one fails too.
        const counted = state.afterLoss ? state.failures - 1 : state.failures;
        const line =
          `outlet: no direct path to inlet ${state.advert.inlet} (${error.message}); ` +
          'the relay carries it, and the direct path is tried again later';
        if (counted % 10 === 1) this.options.logger.info(line);
        else if (counted === 0)
          this.options.logger.debug(`${line} (its session just ended: the inlet may have stopped)`);
        state.timer = setTimeout(() => {
          state.timer = undefined;
          this.maintain(state);
        }, state.backoff.next());
        state.timer.unref();
      },
    );
  }

  private async dialOnce(advert: InletAdvert): Promise<void> {
    const { dial, withheld } = this.budget.allow(advert.inlet, advert.addresses, Date.now());
    if (withheld > 0)
      this.options.logger.debug(
        `outlet: inlet ${advert.inlet} advertised ${withheld} addresses past what an outlet dials for one inlet`,
      );
    if (dial.length === 0) throw new Error('its advert names no address the outlet dials for it now');
    const raw = await dialFirst(dial, directDialBudgetMs);
    raw.write(directPreambleOf(advert.secret));
    await this.options.carry(raw, advert.inlet);
  }
}

/** Dials every address at once; the first to connect within `budgetMs` wins and the others are closed. */
export function dialFirst(addresses: readonly string[], budgetMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const sockets: Socket[] = [];
    let failed = 0;
    let settled = false;
    const timer = setTimeout(
      () => finish(new Error(`no answer within ${budgetMs} ms from ${addresses.join(', ')}`)),
      budgetMs,
    );
    function finish(error: Error | undefined, winner?: Socket): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      for (const socket of sockets) if (socket !== winner) socket.destroy();
      if (winner) resolve(winner);
      else reject(error ?? new Error(`no answer from ${addresses.join(', ')}`));
    }
    for (const address of addresses) {
      const parsed = parseHostPort(address);
      if (!parsed.ok) {
        failed += 1;
        continue;
      }
      const target = { host: socketHost(parsed.address.host), port: parsed.address.port };
      const socket = connect(withSocketTuning(target, dataPathTuning));
      sockets.push(socket);
      socket.once('connect', () => {
        socket.removeAllListeners('error');
        socket.on('error', () => socket.destroy());
        finish(undefined, socket);
      });
      socket.once('error', (error: NodeJS.ErrnoException) => {
        failed += 1;
        if (failed === addresses.length)
          finish(new Error(`${error.code ?? error.message} from ${addresses.join(', ')}`));
      });
    }
    if (failed === addresses.length) finish(new Error('no address to dial'));
  });
}
