import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { imageConfig, layOutImage, readDockerfile, type Container } from '../support/dockerfile.ts';
import { nodeContainer, nodeFile, podSpec } from '../support/k8s-files.ts';
import { createPod, type ClusterObjects } from '../support/k8s-pod.ts';
import { inletPort, statusWhen } from '../support/processes.ts';
import { roundTrip, startEchoServer } from '../support/tcp.ts';
import { runUseCase, type UseCaseRun } from '../support/usecase-run.ts';
import { artifactText } from '../support/usecases.ts';

const setUp = /Portal node setup completed successfully/;
const keyWarning = /may be read or changed by users other than its owner/;

/**
 * The one change a test machine needs, in the ConfigMap as the administrator could make it: the inlet
 * and its status server on free ports of loopback (the compiled file has the direct path off already).
 */
function onTestMachine(json: string): string {
  const config = JSON.parse(json) as { 'tcp-inlet': Record<string, unknown> };
  return JSON.stringify({
    ...config,
    'http-server-port': 0,
    'tcp-inlet': { ...config['tcp-inlet'], from: '127.0.0.1:0' },
  });
}

/** Every path under `dir`: the image's root, which the pod may not write. */
async function tree(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).sort();
}

describe('the inlet pod of the compiled out/postgres/k8s/inlet.yaml, run as the kubelet runs it', function () {
  this.timeout(120_000);
  const inlet = nodeFile(artifactText('postgres', 'k8s/inlet.yaml'));
  const spec: IPodSpec = podSpec(inlet);
  const node: IContainer = nodeContainer(inlet);
  const [copier] = spec.initContainers ?? [];
  let run: UseCaseRun;
  let image: Container;
  let echo: Awaited<ReturnType<typeof startEchoServer>>;
  let cluster: ClusterObjects & { secrets: Map<string, Record<string, string>> };

  before(async () => {
    run = await runUseCase('postgres');
    echo = await startEchoServer();
    await run.startOutlet(() => `127.0.0.1:${echo.port}`);
    image = await layOutImage(imageConfig(await readDockerfile()));
    const configMaps = new Map(
      inlet.configMaps.map((map) => [map.metadata?.name ?? '', { ...map.data }] as [string, Record<string, string>]),
    );
    const configuration = configMaps.get('postgres-inlet-configuration');
    assert.ok(configuration?.['inlet.json']);
    configuration['inlet.json'] = onTestMachine(configuration['inlet.json']);
    cluster = {
      configMaps,
      // What the header's two kubectl create secret commands make.
      secrets: new Map<string, Record<string, string>>([
        ['postgres-inlet-ticket', { ticket: `${run.tickets.inlet}\n` }],
        ['postgres-inlet-sealing-key', { 'node-seal.key': `${randomBytes(32).toString('base64')}\n` }],
      ]),
      claims: new Map([['postgres-inlet-state', image.volume]]),
    };
  });

  after(async () => {
    await echo?.close();
    await run?.close();
    await image?.remove();
  });

  /** The pod's init container, then its node; resolves once the node has set up. */
  async function startPod() {
    const pod = await createPod(spec, image, cluster);
    assert.ok(copier);
    const copied = await pod.exec(copier, copier.command ?? []);
    assert.equal(copied.code, 0, copied.stderr);
    const keyFile = pod.translate(node, pod.environment(node).PORTAL_SEALING_KEY_FILE ?? '');
    assert.equal((await stat(keyFile)).mode & 0o777, 0o600, 'the copy is 0600');
    const running = pod.start(node);
    await running.waitFor(setUp, 30_000).catch(async (error: unknown) => {
      await running.stop();
      throw error;
    });
    return { pod, running };
  }

  /** A probe's command, with the status port the node chose on this machine in place of the compiled one. */
  async function probe(which: 'readinessProbe' | 'livenessProbe' | 'startupProbe'): Promise<string[]> {
    const runtime = JSON.parse(await readFile(join(image.volume, 'node', 'runtime.json'), 'utf8')) as {
      statusPort: number;
    };
    const command = node[which]?.exec?.command ?? [];
    assert.ok(command.some((word) => word.includes('port: 23345,')));
    return command.map((word) => word.replace('port: 23345,', `port: ${runtime.statusPort},`));
  }

  it('enrolls with the ticket from its Secret, reads its key unwarned, passes its probes, carries bytes', async () => {
    const rootBefore = await tree(image.root);
    const { pod, running } = await startPod();
    let liveness: string[] | undefined;
    try {
      assert.ok(!running.lines.some((line) => keyWarning.test(line)), running.lines.join('\n'));
      for (const which of ['startupProbe', 'livenessProbe', 'readinessProbe'] as const) {
        const passed = await pod.exec(node, await probe(which));
        assert.equal(passed.code, 0, `${which}: ${passed.stdout}${passed.stderr}`);
      }
      // What the probe checks is what an administrator checks.
      const shown = await pod.exec(node, ['portal', 'node', 'show']);
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(shown.stdout, /^The node is UP/);
      liveness = await probe('livenessProbe');
      const payload = randomBytes(64 * 1024);
      assert.deepEqual(await roundTrip(await inletPort(image.volume), payload), payload);
    } finally {
      assert.equal(await running.stop(), 0, 'the node stops cleanly within its grace period');
    }
    assert.ok(liveness);
    const dead = await pod.exec(node, liveness);
    assert.equal(dead.code, 1, 'liveness fails once the node is gone');
    assert.deepEqual(await tree(image.root), rootBefore, 'nothing was written outside the volumes');
  });

  // After the test above, which enrolled the node on its claim.
  it('starts again with the ticket Secret deleted; is unready but alive without its outlet', async () => {
    cluster.secrets.delete('postgres-inlet-ticket');
    const { pod, running } = await startPod();
    try {
      assert.equal(pod.environment(node).ENROLLMENT_TICKET, undefined, 'the optional ticket is absent');
      const ready = await pod.exec(node, await probe('readinessProbe'));
      assert.equal(ready.code, 0, ready.stdout);
      await run.stopNodes('outlet');
      await statusWhen(image.volume, (shown) => shown.status !== 'up', 30_000);
      const unready = await pod.exec(node, await probe('readinessProbe'));
      assert.equal(unready.code, 1);
      assert.match(
        unready.stdout,
        /^The node is down: its inlet on 127\.0\.0\.1:\d+ has no session to relay "postgres"/,
      );
      const alive = await pod.exec(node, await probe('livenessProbe'));
      assert.equal(alive.code, 0, 'a node without its outlet is not restarted: it recovers by itself');
    } finally {
      await running.stop();
    }
  });
});
