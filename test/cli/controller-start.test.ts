import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { portal, startPortal } from '../support/processes.ts';

const codeLine = /^one-time admin code \(valid 24h\): (pa1\.\S+)$/;
const listening = /^controller listening on (\S+), reached as \S+/;

describe('portal controller start: an admin code only when one is needed', function () {
  this.timeout(60_000);
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-controller-start-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /**
   * Starts the controller on `listen`, waits until it has said what it says at start, stops it (exit 0), and
   * returns its lines.
   */
  async function startOnce(listen: string, extra: string[] = []): Promise<string[]> {
    const controller = startPortal(join(dir, 'home'), [
      'controller',
      'start',
      '--listen',
      listen,
      '--data-dir',
      join(dir, 'data'),
      ...extra,
    ]);
    try {
      await controller.waitFor(/^(enroll an administrator with|it hosts)/);
    } finally {
      assert.equal(await controller.stop(), 0);
    }
    return [...controller.lines];
  }

  it(
    'prints a code for the first project, none once it hosts one (no secret in a service log), ' +
      'and one with --admin-code',
    async () => {
      const first = await startOnce('127.0.0.1:0');
      const code = codeLine.exec(first.find((line) => codeLine.test(line)) ?? '')?.[1];
      const address = listening.exec(first.find((line) => listening.test(line)) ?? '')?.[1] ?? '';
      assert.ok(code, first.join('\n'));
      // Its port is known now: the next starts take the same one, as a service's would.
      const second = startPortal(join(dir, 'home'), [
        'controller',
        'start',
        '--listen',
        address,
        '--data-dir',
        join(dir, 'data'),
      ]);
      try {
        await second.waitFor(/^it hosts|^enroll an administrator/);
        const enrolled = await portal(join(dir, 'admin'), ['enroll', '--controller', address, '--code', code]);
        assert.equal(enrolled.code, 0, enrolled.stderr);
      } finally {
        await second.stop();
      }
      const again = await startOnce(address);
      assert.ok(!again.some((line) => /admin code \(valid|pa1\./.test(line)), again.join('\n'));
      assert.ok(
        again.includes(
          "it hosts 1 project; for another project's administrator, start it once with --admin-code to " +
            'print a one-time code',
        ),
        again.join('\n'),
      );
      const asked = await startOnce(address, ['--admin-code']);
      assert.ok(
        asked.some((line) => codeLine.test(line)),
        asked.join('\n'),
      );
    },
  );

  it('refuses --listen on every address without --public-address, as portal enroll does, before starting', async () => {
    for (const listen of ['0.0.0.0:4000', '[::]:0']) {
      const data = join(dir, `wildcard-${listen.length}`);
      const run = await portal(join(dir, 'home'), ['controller', 'start', '--listen', listen, '--data-dir', data]);
      const port = listen.endsWith(':0') ? '0' : '4000';
      const hintPort = port === '0' ? 'PORT' : port;
      assert.deepEqual(
        [run.code, run.stdout, run.stderr],
        [
          2,
          '',
          `portal: --listen ${listen} accepts nodes on every address, but without --public-address tickets would ` +
            `name 127.0.0.1:${port}, which only this machine reaches; add --public-address HOST:${hintPort}, ` +
            'the name or address other machines dial\n',
        ],
      );
      assert.equal(existsSync(data), false, 'nothing was created');
    }
  });

  it('refuses several replica addresses with the embedded relay, before starting, and names --no-relay', async () => {
    const data = join(dir, 'replicas-with-relay');
    const run = await portal(join(dir, 'home'), [
      'controller',
      'start',
      '--listen',
      '127.0.0.1:0',
      '--public-address',
      'cp1.example.net:4000',
      '--public-address',
      'cp2.example.net:4000',
      '--data-dir',
      data,
    ]);
    assert.deepEqual(
      [run.code, run.stdout, run.stderr],
      [
        2,
        '',
        'portal: --public-address names several controller replicas, whose embedded relays cannot serve one ' +
          'project together; start every replica with --no-relay and run relay nodes (portal relay start); ' +
          'see docs/replicas.md\n',
      ],
    );
    assert.equal(existsSync(data), false, 'nothing was created');
  });
});
