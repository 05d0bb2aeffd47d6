import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { artifactText } from '../support/usecases.ts';

/** Starts the compiled receiver with python3 on a free port; resolves once it prints where it listens. */
interface Receiver {
  child: ChildProcessWithoutNullStreams;
  port: number;
  output: string[];
  lineMatching(pattern: RegExp): Promise<string>;
}

async function startReceiver(path: string): Promise<Receiver> {
  const child = spawn('python3', [path, '--port', '0']);
  const output: string[] = [];
  const lines = createInterface({ input: child.stdout });
  const lineMatching = (pattern: RegExp) =>
    new Promise<string>((resolve) => {
      const found = output.find((line) => pattern.test(line));
      if (found) return resolve(found);
      const onLine = (line: string) => {
        if (!pattern.test(line)) return;
        lines.off('line', onLine);
        resolve(line);
      };
      lines.on('line', onLine);
    });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`receiver exited with ${code}`)));
    lines.on('line', (line) => {
      output.push(line);
      const match = /^Webhook receiver listening on 127\.0\.0\.1:(\d+)$/.exec(line);
      if (match) resolve(Number(match[1]));
    });
  });
  return { child, port, output, lineMatching };
}

describe('webhook receiver (spec 4.2)', () => {
  let directory: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'portal-webhook-'));
    const path = join(directory, 'webhook_receiver.py');
    await writeFile(path, artifactText('webhook', 'webhook_receiver.py'));
    receiver = await startReceiver(path);
  });

  after(async () => {
    receiver.child.kill('SIGTERM');
    const [code] = (await once(receiver.child, 'exit')) as [number | null];
    assert.equal(code, 0, 'stops cleanly on SIGTERM');
    await rm(directory, { recursive: true, force: true });
  });

  it('answers POST /webhook with 200 "Webhook received" and logs the JSON and the request', async () => {
    const response = await fetch(`http://127.0.0.1:${receiver.port}/webhook`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ from: 'inlet-machine' }),
    });
    assert.equal(response.status, 200);
    assert.equal(await response.text(), 'Webhook received');
    // The receiver's log lines travel through its stdout pipe: wait for them.
    await receiver.lineMatching(/"POST \/webhook HTTP\/1\.1" 200 -$/);
    assert.ok(receiver.output.includes('Received webhook: {"from": "inlet-machine"}'), receiver.output.join('\n'));
  });

  it('refuses other paths and bodies that are not JSON', async () => {
    const wrongPath = await fetch(`http://127.0.0.1:${receiver.port}/elsewhere`, { method: 'POST', body: '{}' });
    assert.equal(wrongPath.status, 404);
    const notJson = await fetch(`http://127.0.0.1:${receiver.port}/webhook`, { method: 'POST', body: 'from=me' });
    assert.equal(notJson.status, 400);
    assert.equal(await notJson.text(), 'Invalid JSON body');
  });

  it('listens on the outlet target port, 7777, unless told otherwise', () => {
    assert.match(artifactText('webhook', 'webhook_receiver.py'), /^PORT = 7777$/m);
  });
});
