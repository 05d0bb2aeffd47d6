import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../support/usecases.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';

const tsxLoader = pathToFileURL(join(projectRoot, 'node_modules/tsx/dist/loader.mjs')).href;

/**
 * Runs `npm start`'s script (the bundle is built by the test run) with `args`; its exit code and output.
 * `running` is called once with the output so far when it says the demo keeps running, and stops it.
 */
function demo(
  args: string[],
  running?: (stdout: string) => Promise<void>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', tsxLoader, join(projectRoot, 'scripts/demo.ts'), ...args], {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let called = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (running && !called && /Press Ctrl-C to stop everything/.test(stdout)) {
        called = true;
        void running(stdout)
          .catch((error: Error) => (stderr += `the check while running failed: ${error.stack}\n`))
          .finally(() => child.kill('SIGINT'));
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm start (scripts/demo.ts)', function () {
  this.timeout(120_000);
  let kept: string | undefined;

  after(() => {
    if (kept && existsSync(kept))
      spawnSync('bash', [
        '-c',
        `PORTAL_HOME='${kept}/admin' '${process.execPath}' '${join(projectRoot, 'dist/portal.mjs')}' ` +
          `reset --yes --delete-controller; rm -rf '${kept}'`,
      ]);
  });

  it(
    'with --keep, prints each command as a user would type it, runs on with a console link until Ctrl-C, ' +
      'keeps the directory, and those commands run as printed',
    async () => {
      let overview = '';
      const run = await demo(['--keep'], async (stdout) => {
        const link = /^ {6}(http:\/\/127\.0\.0\.1:\d+\/sign-in\/\S+)$/m.exec(stdout)?.[1];
        assert.ok(link, stdout);
        const form = await (await fetch(link)).text();
        const secret = /name="secret" value="([^"]+)"/.exec(form)?.[1] ?? '';
        const origin = new URL(link).origin;
        const signedIn = await fetch(`${origin}/sign-in`, {
          method: 'POST',
          body: new URLSearchParams({ secret }),
          headers: { origin },
          redirect: 'manual',
        });
        const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
        // The nodes report every 2 s: the webhooks the demo sent show within a report or two.
        const carried = /<td data-bytes-up>[1-9][\d.,]* (B|KiB)<\/td>/;
        for (let waited = 0; waited < 15_000 && !carried.test(overview); waited += 500) {
          overview = await (await fetch(`${origin}/`, { headers: { cookie } })).text();
          if (!carried.test(overview)) await new Promise((resolve) => setTimeout(resolve, 500));
        }
      });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.doesNotMatch(run.stderr, /the check while running failed/);
      // The demo's portal, live on the console's overview, as the printed link shows it.
      assert.match(overview, /<tr data-portal="n[0-9a-f]{16} webhook">/);
      assert.match(overview, /<td data-bytes-up>[1-9][\d.,]* (B|KiB)<\/td>/);
      kept = /^Kept (\S+): /m.exec(run.stdout)?.[1];
      assert.ok(kept, run.stdout);
      assert.deepEqual((await readdir(kept)).sort(), [
        'admin',
        'bin',
        'inlet',
        'inlet.json',
        'inlet.ticket',
        'out',
        'outlet',
        'outlet.json',
        'outlet.ticket',
      ]);
      const commands = [...run.stdout.matchAll(/^ {6}\$ (.*)$/gm)].map((match) => match[1] as string);
      const expected = [
        `export PATH=${kept}/bin:"$PATH"`,
        `PORTAL_HOME=${kept}/admin portal compile ${projectRoot}usecases/webhook.yaml --out ${kept}/out`,
        `cd ${kept} && PORTAL_HOME=${kept}/admin bash ${kept}/out/webhook/tickets.sh --local`,
        `PORTAL_HOME=${kept}/admin portal project show`,
        `python3 ${kept}/out/webhook/webhook_receiver.py --port 0`,
        `PORTAL_HOME=${kept}/outlet ENROLLMENT_TICKET="$(cat ${kept}/outlet.ticket)" portal node create --foreground ` +
          `--configuration ${kept}/outlet.json`,
        `PORTAL_HOME=${kept}/inlet ENROLLMENT_TICKET="$(cat ${kept}/inlet.ticket)" portal node create --foreground ` +
          `--configuration ${kept}/inlet.json`,
      ];
      assert.deepEqual(commands.slice(0, expected.length), expected);
      assert.match(
        commands[expected.length] ?? '',
        joinedRegExp(
          /^curl -sS -X POST -H 'Content-Type: application\/json' /,
          /-d '\{"from":"[^']*"\}' http:\/\/127\.0\.0\.1:\d+\/webhook$/,
        ),
      );
      assert.match(run.stdout, new RegExp(`^\\$ PORTAL_HOME=${kept}/outlet portal node show\\n  The node is UP$`, 'm'));

      // As printed, with the demo's PATH: the administrator's state was kept (this starts the controller again).
      const path = `${kept}/bin:${process.env.PATH}`;
      const shown = spawnSync('bash', ['-c', `PORTAL_HOME=${kept}/admin portal project show`], {
        encoding: 'utf8',
        env: { ...process.env, PATH: path },
      });
      assert.equal(shown.status, 0, shown.stderr);
      assert.match(shown.stdout, /"id": "p[0-9a-f]{16}"/);
      const remove = /^Remove it with:\n {6}\$ (.*)$/m.exec(run.stdout)?.[1];
      assert.equal(remove, `PORTAL_HOME=${kept}/admin portal reset --yes --delete-controller && rm -rf ${kept}`);
      const removed = spawnSync('bash', ['-c', remove], { encoding: 'utf8', env: { ...process.env, PATH: path } });
      assert.equal(removed.status, 0, removed.stderr);
      assert.equal(existsSync(kept), false);
    },
  );

  it('without --keep, shows no commands and removes its directory, as before', async () => {
    const run = await demo([]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.doesNotMatch(run.stdout, /^ {6}\$ /m);
    assert.match(run.stdout, /✔ stopped everything and removed the demo directory\n$/);
  });
});
