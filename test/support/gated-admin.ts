/**
 * The administrator's CLI run with its connection to the controller held at a gate: the command has
 * started (which takes seconds on a loaded machine) and dialled once `arrived` resolves, and its request
 * goes on only at `release`. An attack can so place the moment a command reaches the controller between
 * two of its own steps. The administrator's home is copied, with the controller's address in it turned
 * to the gate; the TLS bytes pass the gate untouched, so the pinned certificate is the controller's.
 */
import { cp, readFile, writeFile } from 'node:fs/promises';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { portal } from './processes.ts';

export interface GatedCommand {
  /** Resolves when the command's connection is at the gate. */
  readonly arrived: Promise<void>;
  /** Lets the held connection (and any later one) through to the controller. */
  release(): void;
  /** The command's end: its exit code and output, and when it ended (Date.now()). */
  readonly done: Promise<{ code: number | null; stdout: string; stderr: string; endedAt: number }>;
}

/** `portal <args>` as the administrator of `adminHome`, from a copy of that home under `scratch`. */
export async function gatedAdminCommand(
  adminHome: string,
  scratch: string,
  args: readonly string[],
): Promise<GatedCommand> {
  const home = join(scratch, 'gated-admin');
  await cp(adminHome, home, { recursive: true });
  const recordPath = join(home, 'admin', 'identity.json');
  const record = JSON.parse(await readFile(recordPath, 'utf8')) as { controller: string };
  const { controller } = record;
  const [host, port] = [controller.slice(0, controller.lastIndexOf(':')), Number(controller.split(':').at(-1))];
  const held: Socket[] = [];
  let open = false;
  let arrive: () => void = () => undefined;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const sockets = new Set<Socket>();
  const forward = (client: Socket) => {
    const upstream = connect({ host, port });
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.pipe(to);
      from.on('error', () => to.destroy());
      from.once('close', () => sockets.delete(from));
    }
  };
  const server = createServer((client) => {
    client.on('error', () => client.destroy());
    if (open) forward(client);
    else held.push(client);
    arrive();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const gate = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  await writeFile(recordPath, JSON.stringify({ ...record, controller: gate }));
  const done = portal(home, args).then((result) => ({ ...result, endedAt: Date.now() }));
  void done.finally(() => {
    for (const socket of [...sockets, ...held]) socket.destroy();
    server.close();
  });
  return {
    arrived,
    release() {
      open = true;
      for (const client of held.splice(0)) forward(client);
    },
    done,
  };
}
