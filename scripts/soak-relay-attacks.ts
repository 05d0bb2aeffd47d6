/**
 * The soak's attacks on the relay layer once the bulk portal runs through relays only: D3 (20
 * unreachable relays announced, then the real relay restarted behind them) and D6 (the relay killed
 * mid-transfer). Each adds to `failures` every target it misses and returns the figures for the table.
 */
import { announceUnreachableRelays, type Attackers } from '../test/support/attack-scenarios.ts';
import { countOutcomes, cutTransfers } from '../test/support/cut-transfers.ts';
import { timeUntilWorking } from '../test/support/echo-portal.ts';
import { statusWhen, type Running } from '../test/support/processes.ts';
import { restartRelay, type RelayProcess } from '../test/support/relay-processes.ts';

const MiB = 1024 * 1024;

/** What the relay attacks act on: the running soak's bulk portal and its one real relay. */
export interface RelayAttackScene {
  readonly attackers: Attackers;
  readonly bulk: {
    readonly port: number;
    readonly inlet: Running | undefined;
    readonly outlet: Running;
    readonly inletHome: string;
    readonly outletHome: string;
  };
  /** The real relay: restarted by each attack, so read at each use. */
  readonly relays: { current(): RelayProcess; replace(next: RelayProcess): void };
  readonly failures: string[];
}

/** D3: 20 relays announced that no one reaches, then the real relay restarted: linked again, and how soon. */
export async function unreachableRelaysRow(soak: RelayAttackScene): Promise<string> {
  const phantoms = await announceUnreachableRelays(soak.attackers, 'phantom', 20);
  try {
    const listed = await statusWhen(soak.bulk.inletHome, (shown) => shown.relays.length >= 21, 20_000);
    const slots = listed.relays.filter((known) => known.status !== 'waiting').length;
    await soak.relays.current().process.stop();
    const restarted = Date.now();
    // Reached at its own address from here on: the gate was for D2, and D6's bytes need not cross this process.
    soak.relays.replace(await restartRelay({ ...soak.relays.current(), publicAddress: undefined }));
    const id = soak.relays.current().id;
    const linked = await statusWhen(
      soak.bulk.inletHome,
      (shown) => shown.relays.some((known) => known.id === id && known.status === 'connected'),
      90_000,
    ).then(
      () => Date.now() - restarted,
      () => undefined,
    );
    const registered = await statusWhen(
      soak.bulk.outletHome,
      (shown) => shown.outlets[0]?.registered_on.includes(id) ?? false,
      90_000,
    ).then(
      () => Date.now() - restarted,
      () => undefined,
    );
    const working = await timeUntilWorking(soak.bulk.port, 90_000, 50).then(
      () => Date.now() - restarted,
      () => undefined,
    );
    if (linked === undefined)
      soak.failures.push(
        'the bulk inlet did not link the restarted relay again within 90 s (20 unreachable relays announced)',
      );
    return (
      `the bulk inlet listed ${listed.relays.length} relays (20 unreachable), ${slots} in slots; ` +
      `relay restarted: linked by the bulk inlet after ${linked ?? 'never (90 s)'} ms, ` +
      `registered by the bulk outlet after ${registered ?? 'never (90 s)'} ms, ` +
      `bulk clients working after ${working ?? 'never (90 s)'} ms`
    );
  } finally {
    phantoms.withdraw();
  }
}

/** D6: the relay SIGKILLed while 20 clients each carry 32 MiB through it: none may see a short end of stream. */
export async function relayKilledRow(soak: RelayAttackScene): Promise<string> {
  const id = soak.relays.current().id;
  await statusWhen(
    soak.bulk.inletHome,
    (shown) => shown.inlets[0]?.path === `relay ${id}` && shown.inlets[0]?.warm_streams === 2,
    30_000,
  );
  const killed = soak.relays.current();
  const logFrom = {
    inlet: soak.bulk.inlet?.lines.length ?? 0,
    outlet: soak.bulk.outlet.lines.length,
    relay: killed.process.lines.length,
  };
  const logsSince = () =>
    [
      `bulk inlet:`,
      ...(soak.bulk.inlet?.lines.slice(logFrom.inlet) ?? []),
      `bulk outlet:`,
      ...soak.bulk.outlet.lines.slice(logFrom.outlet),
      `relay:`,
      ...killed.process.lines.slice(logFrom.relay),
    ]
      .filter((line) => !/ DEBUG /.test(line) || /session|heartbeat|closed|lost/i.test(line))
      .slice(0, 60)
      .join('\n');
  const result = await cutTransfers(soak.bulk.port, {
    clients: 20,
    bytes: 32 * MiB,
    cutAfter: 8 * MiB,
    cut: () => killed.process.kill(),
  }).catch((error: Error) => {
    throw new Error(`${error.message}\nwhat the bulk nodes and the relay logged meanwhile:\n${logsSince()}`);
  });
  soak.relays.replace(await restartRelay(killed));
  const counts = countOutcomes(result.outcomes);
  const short = result.outcomes
    .filter((outcome) => outcome.kind === 'truncated' || outcome.kind === 'other')
    .map((outcome) => outcome.index);
  if (counts.other > 0 || counts.whole === 20)
    console.log(`soak: D6 did not go as planned (${JSON.stringify(counts)}); logged meanwhile:\n${logsSince()}`);
  if (short.length > 0)
    soak.failures.push(
      `relay killed mid-transfer: ${counts.truncated} clients saw an end of stream with bytes missing, ` +
        `${counts.other} something else (clients ${short.join(', ')}; 0 and 1 took the warm streams)`,
    );
  return (
    `20 clients x 32 MiB through the bulk inlet, relay SIGKILLed once ${result.cutAt} bytes had come back: ` +
    `${counts.whole} whole, ${counts.reset} reset, ${counts.truncated} truncated (end of stream, ` +
    `bytes missing)${counts.other ? `, ${counts.other} other` : ''}` +
    `${short.length ? ` [clients ${short.join(', ')}; 0 and 1 took the warm streams]` : ''}`
  );
}
