import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { nodeStatus, portal, startPortal, type Running } from '../support/processes.ts';
import { createWorld, type World } from '../support/portal-world.ts';

describe('portal node reload: its outcome and exit code', function () {
  this.timeout(60_000);
  let world: World;
  const running: Running[] = [];
  const home = (name: string) => join(world.dir, name);
  const inlet = (via: string) => ({ 'http-server-port': 0, 'tcp-inlet': { from: '127.0.0.1:0', via, allow: 'x' } });

  before(async () => {
    world = await createWorld();
  });

  after(async () => {
    for (const node of running) await node.stop();
    await world.close();
  });

  async function startInlet(name: string, configuration: string): Promise<Running> {
    const node = startPortal(home(name), ['node', 'create', '--foreground', '--configuration', configuration], {
      ENROLLMENT_TICKET: await world.ticket({ attribute: 'reloaded' }),
    });
    running.push(node);
    // The inlet has no outlet: it runs (and answers /show) without being set up.
    await node.waitFor(/listens on/);
    return node;
  }

  it('exits 1 when no node runs with this PORTAL_HOME', async () => {
    const run = await portal(home('nobody'), ['node', 'reload']);
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      `portal: no node runs with PORTAL_HOME=${home('nobody')}; ` +
        'start it with portal node create --foreground, or give the PORTAL_HOME it runs with\n',
    );
  });

  it('exits 2 for a node started with its configuration inline, saying how to start it instead', async () => {
    const node = await startInlet('inline', JSON.stringify(inlet('a')));
    const run = await portal(home('inline'), ['node', 'reload']);
    assert.equal(run.code, 2);
    assert.equal(
      run.stderr,
      "portal: the node was started with its configuration inline (--configuration '{…}'), so it has no file to " +
        'read again; to reload a node live, start it with --configuration FILE; to change this one, stop it and ' +
        'start it with the new configuration\n',
    );
    await node.waitFor(/ERROR reload refused: the node was started with its configuration inline/);
    assert.equal((await nodeStatus(home('inline'))).reload.count, 1);
  });

  it('exits 0 with what changed, and 2 with every located problem of a configuration it refuses', async () => {
    const file = join(world.dir, 'reloaded.yaml');
    await writeFile(file, 'http-server-port: 0\ntcp-inlet: {from: "127.0.0.1:0", via: a, allow: x}\n');
    await startInlet('reloaded', file);
    await writeFile(
      file,
      'http-server-port: 0\ntcp-inlets:\n  a: {from: "127.0.0.1:0", allow: x}\n  b: {from: "127.0.0.1:0", allow: x}\n',
    );
    const applied = await portal(home('reloaded'), ['node', 'reload']);
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(
      applied.stdout,
      // The single form's inlet a becomes the plural form's: the same name, defined elsewhere, so replaced.
      /^Reloaded the configuration of the node \(process \d+\): added inlet b; replaced inlet a; 0 unchanged\.\n$/,
    );
    const shown = await nodeStatus(home('reloaded'));
    assert.deepEqual(
      shown.inlets.map((entry) => [entry.name, entry.configured_at]),
      [
        ['a', '/tcp-inlets/a'],
        ['b', '/tcp-inlets/b'],
      ],
    );

    await writeFile(file, 'http-server-port: 23999\ntcp-inlets:\n  a: {from: "127.0.0.1:0", via: $X, allow: x}\n');
    const refused = await portal(home('reloaded'), ['node', 'reload']);
    assert.equal(refused.code, 2);
    assert.equal(
      refused.stderr,
      `${file}:3:33: /tcp-inlets/a/via: expected a name of lower-case letters, digits and dashes, got "$X"\n` +
        'portal: 1 problem; fix the configuration and reload again; the node carries on with the one it runs\n',
    );
    await writeFile(file, 'http-server-port: 23999\ntcp-inlets:\n  a: {from: "127.0.0.1:0", allow: x}\n');
    const port = await portal(home('reloaded'), ['node', 'reload']);
    assert.equal(port.code, 2);
    assert.ok(
      port.stderr.startsWith(
        `${file}:1:19: /http-server-port: the status server's port cannot change while the node runs ` +
          '(it runs with http-server-port 0); set it back, or restart the node to use 23999\n',
      ),
      port.stderr,
    );
    assert.deepEqual(
      (await nodeStatus(home('reloaded'))).inlets.map((entry) => entry.name),
      ['a', 'b'],
    );
  });

  it('refuses at start a placeholder whose variable is not set, and takes one that is', async () => {
    const config = JSON.stringify({
      'http-server-port': 0,
      relay: 'db',
      'tcp-outlet': { to: '$DB_ENDPOINT:5432', allow: 'x' },
    });
    const ticket = await world.ticket({ attribute: 'db-outlet', relay: 'db' });
    const unset = await portal(home('placeholder'), ['node', 'create', '--foreground', '--configuration', config], {
      ENROLLMENT_TICKET: ticket,
      DB_ENDPOINT: '',
    });
    assert.equal(unset.code, 2);
    assert.equal(
      unset.stderr,
      '--configuration:1:55: /tcp-outlet/to: $DB_ENDPOINT stands for the environment variable DB_ENDPOINT, which is ' +
        "not set; set DB_ENDPOINT in the node's environment to the service's address, or write the address in its " +
        'place\nportal: 1 problem; fix the configuration and start the node again\n',
    );
    const node = startPortal(home('placeholder'), ['node', 'create', '--foreground', '--configuration', config], {
      ENROLLMENT_TICKET: ticket,
      DB_ENDPOINT: 'db.internal.example',
    });
    running.push(node);
    await node.waitFor(/relay name "db" registered on relay controller .*; forwarding to db\.internal\.example:5432$/);
  });

  it('takes one relay name per --relay, and refuses a comma in one', async () => {
    // Refused before any controller is asked: this home has no administrator.
    const comma = await portal(home('no-admin'), ['project', 'ticket', '--attribute', 'x', '--relay', 'a,b']);
    assert.equal(comma.code, 2);
    assert.equal(comma.stderr, 'portal: --relay a,b holds a comma; give one name per --relay: --relay a --relay b\n');
  });
});
