import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { nodeStatus, portal, portalBundle, startPortal, type Running } from '../support/processes.ts';
import { createWorld, type World } from '../support/portal-world.ts';

/** Runs the bundled CLI with `input` on its standard input, as a pipe or `docker exec -i` gives it. */
async function portalWithInput(
  home: string,
  args: readonly string[],
  input: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [portalBundle, ...args], {
    env: { ...process.env, NODE_DEVELOPER: undefined, PORTAL_HOME: home },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input);
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

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

  it('reloads a node started with its configuration inline from the copy it keeps in its home', async () => {
    const first = JSON.stringify(inlet('a'));
    const node = await startInlet('inline', first);
    const kept = join(home('inline'), 'node', 'configuration');
    assert.equal(await readFile(kept, 'utf8'), first, 'the document as given');
    assert.equal((await stat(kept)).mode & 0o777, 0o600, 'readable by the node alone: a document may hold a ticket');

    // Nothing changed: the kept copy is read again.
    const again = await portal(home('inline'), ['node', 'reload']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(
      again.stdout,
      /^Reloaded the configuration of the node \(process \d+\): nothing changed \(1 portals\)\.\n$/,
    );

    // A new document, inline, as the quick start gave the first.
    const second = JSON.stringify({
      'http-server-port': 0,
      'tcp-inlets': { a: { from: '127.0.0.1:0', via: 'a', allow: 'x' }, b: { from: '127.0.0.1:0', allow: 'x' } },
    });
    const applied = await portal(home('inline'), ['node', 'reload', '--configuration', second]);
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /: added inlet b; replaced inlet a; 0 unchanged\.\n$/);
    assert.equal(await readFile(kept, 'utf8'), second);
    assert.deepEqual(
      (await nodeStatus(home('inline'))).inlets.map((entry) => entry.name),
      ['a', 'b'],
    );

    // From standard input, as `docker exec -i <container> portal node reload --configuration - < FILE` gives it.
    const third = 'http-server-port: 0\ntcp-inlets:\n  b: {from: "127.0.0.1:0", allow: x}\n';
    const piped = await portalWithInput(home('inline'), ['node', 'reload', '--configuration', '-'], third);
    assert.equal(piped.code, 0, piped.stderr);
    assert.match(piped.stdout, /: removed inlet a; 1 unchanged\.\n$/);
    assert.equal(await readFile(kept, 'utf8'), third);

    // Refused: the node runs as before, and the kept copy is what it runs, not the refused document.
    const refused = await portal(home('inline'), [
      'node',
      'reload',
      '--configuration',
      JSON.stringify({ 'http-server-port': 23999, 'tcp-inlet': { from: '127.0.0.1:0', via: 'b', allow: 'x' } }),
    ]);
    assert.equal(refused.code, 2);
    // Located in the document as given.
    assert.ok(
      refused.stderr.startsWith(
        "--configuration:1:21: /http-server-port: the status server's port cannot change while the node runs",
      ),
      refused.stderr,
    );
    assert.equal(await readFile(kept, 'utf8'), third, 'the refused document was taken back');
    assert.deepEqual(
      (await nodeStatus(home('inline'))).inlets.map((entry) => entry.name),
      ['b'],
    );
    await node.waitFor(/ERROR reload refused: fix the configuration and reload again/);
  });

  it('refuses --configuration for a node that reads a file of its own, which stays the one truth', async () => {
    const file = join(world.dir, 'own.yaml');
    await writeFile(file, 'http-server-port: 0\ntcp-inlet: {from: "127.0.0.1:0", via: a, allow: x}\n');
    await startInlet('own-file', file);
    const run = await portal(home('own-file'), ['node', 'reload', '--configuration', JSON.stringify(inlet('b'))]);
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      new RegExp(
        `^portal: the node \\(process \\d+\\) reads its configuration from ${file.replace(/[.]/g, '\\.')}, so ` +
          '--configuration would be overwritten by that file at its next reload; ' +
          `edit ${file.replace(/[.]/g, '\\.')} and run portal node reload without --configuration\n$`,
      ),
    );
    assert.equal(existsSync(join(home('own-file'), 'node', 'configuration')), false, 'nothing kept beside the file');
    assert.equal((await nodeStatus(home('own-file'))).reload.count, 0, 'the node was not asked');
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
