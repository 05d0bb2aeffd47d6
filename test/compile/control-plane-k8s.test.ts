/**
 * The control plane's Kubernetes files (control-plane/k8s/): valid against the Kubernetes API, the
 * controllers and relays run as the manifest asks with the flags the CLI takes, secrets only from
 * Secrets, and a guide that names what the files name.
 */
import assert from 'node:assert/strict';
import { basename, dirname } from 'node:path';
import { parseStatusListen } from '../../src/cli/status-listen.ts';
import { compileUseCase } from '../../src/compile/compile.ts';
import { manifestProblems } from '../../src/compile/manifest.ts';
import { relaySealingKeyFile } from '../../src/relay/relay-node.ts';
import { parseHostPort } from '../../src/shared/address.ts';
import { formatProblem } from '../../src/shared/errors.ts';
import type { UseCaseManifest } from '../../src/shared/types/manifest.ts';
import {
  expand,
  flag,
  guideCommands,
  only,
  parsedOptions,
  planeOf,
  podOf,
  selects,
  statefulPods,
  volumeAt,
} from '../support/control-plane-k8s.ts';
import { placeholderWord } from '../support/doc-shell-blocks.ts';
import { declarationProblems, parseKubernetesFile, validatorProblems } from '../support/k8s-api-check.ts';
import { compiled } from '../support/usecases.ts';

const head = ['usecase: db', 'title: A database', 'outlet:', '  to: db.internal:5432', 'inlet:', '  port: 15432'];

/** A use case with `plane` under control-plane: and `more` top-level lines. */
function artifacts(plane: readonly string[], ...more: string[]): Map<string, string> {
  const text = [...head, ...more, 'control-plane:', ...plane.map((line) => `  ${line}`)].join('\n');
  const result = manifestProblems('m.yaml', `${text}\n`);
  assert.deepEqual(result.problems.map(formatProblem), []);
  return new Map(compileUseCase(result.manifest as UseCaseManifest).map((file) => [file.path, file.content]));
}

const postgres = () => new Map([...compiled('postgres')].map(([path, artifact]) => [path, artifact.content]));

describe('the control plane on Kubernetes (control-plane/k8s/)', function () {
  // The declaration check starts the TypeScript checker on kubernetes-models' declarations.
  this.timeout(30_000);

  it('emits the controllers and the relays, every object valid against the Kubernetes API', () => {
    const cases = [
      { files: postgres(), relays: 2 },
      { files: artifacts(['address: cp.example.org', 'replicas: 5', 'relays: 3', 'port: 443']), relays: 3 },
    ];
    for (const { files, relays } of cases) {
      const objects = ['k8s/controllers.yaml', 'k8s/relays.yaml'].flatMap((path) =>
        parseKubernetesFile(files.get(`control-plane/${path}`) ?? ''),
      );
      assert.deepEqual(
        objects.map((object) => `${object.kind}/${object.metadata.name}`),
        [
          'Deployment/portal-controller',
          'Service/portal-controller',
          'PodDisruptionBudget/portal-controller',
          'Service/portal-relay',
          'StatefulSet/portal-relay',
          ...Array.from({ length: relays }, (_, index) => `Service/portal-relay-${index + 1}`),
          'PodDisruptionBudget/portal-relay',
        ],
      );
      assert.deepEqual(objects.flatMap(validatorProblems), []);
      assert.deepEqual(declarationProblems(objects), []);
    }
  });

  it('runs the replicas on the node image, the database and sealing key from Secrets, none in the arguments', () => {
    const { controllers } = planeOf(postgres());
    const pod = podOf(controllers);
    const container = only(controllers);
    const args = container.args ?? [];
    assert.equal(controllers.spec?.replicas, 3);
    assert.equal(container.image, 'portal-node');
    assert.deepEqual(args.slice(0, 2), ['controller', 'start']);
    assert.equal(flag(args, '--listen'), '0.0.0.0:4000');
    assert.equal(flag(args, '--public-address'), 'portal.example.net:4000');
    assert.ok(args.includes('--no-relay'));
    // The URL only through $(…) from its Secret's url key, which never holds the password.
    assert.equal(flag(args, '--store'), '$(PORTAL_STORE_URL)');
    const variables = new Map((container.env ?? []).map((variable) => [variable.name, variable]));
    assert.deepEqual(variables.get('PORTAL_STORE_URL')?.valueFrom?.secretKeyRef, {
      name: 'portal-database',
      key: 'url',
    });
    const referenced = args.flatMap((word) => [...word.matchAll(/\$\(([A-Z_]+)\)/g)].map((match) => match[1]));
    assert.deepEqual(referenced, ['PORTAL_STORE_URL']);
    // The password: a file of the database Secret, mounted read-only.
    const password = flag(args, '--store-password-file');
    const database = volumeAt(pod, container, password);
    assert.equal(database.volume.secret?.secretName, 'portal-database');
    assert.equal(database.mount.readOnly, true);
    assert.equal(password, `${database.mount.mountPath}/password`);
    // The sealing key: copied 0600 from its Secret to a memory volume, which the controller reads.
    const keyFile = flag(args, '--sealing-key-file');
    const copy = volumeAt(pod, container, keyFile);
    assert.equal(copy.volume.emptyDir?.medium, 'Memory');
    const [copier] = pod.initContainers ?? [];
    const source = copier?.command?.at(-2) ?? '';
    assert.deepEqual(copier?.command?.slice(0, 3), ['install', '-m', '0600']);
    assert.equal(copier?.volumeMounts?.find((mount) => mount.name === copy.volume.name)?.mountPath, dirname(keyFile));
    const secret = pod.volumes?.find(
      (volume) => volume.name === copier?.volumeMounts?.find((mount) => mount.mountPath === dirname(source))?.name,
    );
    assert.equal(secret?.secret?.secretName, 'portal-controller-seal');
    assert.equal(`${dirname(source)}/${secret?.secret?.items?.[0]?.key}`, source);
    // The data directory: an emptyDir, nothing a replica keeps.
    assert.deepEqual(volumeAt(pod, container, flag(args, '--data-dir')).volume.emptyDir, {});
  });

  it('is ready while GET /healthz answers on the status port; restarted only when the process stops answering', () => {
    const { controllers, relays } = planeOf(postgres());
    for (const [workload, statusPort] of [
      [controllers, 9460],
      [relays, 9470],
    ] as const) {
      const container = only(workload);
      assert.equal(flag(container.args ?? [], '--status-listen'), `0.0.0.0:${statusPort}`);
      const named = container.ports?.find((port) => port.name === container.readinessProbe?.httpGet?.port);
      assert.equal(container.readinessProbe?.httpGet?.path, '/healthz');
      assert.equal(named?.containerPort, statusPort);
      for (const probe of [container.livenessProbe, container.startupProbe]) {
        const program = probe?.exec?.command?.join(' ') ?? '';
        assert.match(program, new RegExp(`port: ${statusPort}, method: "HEAD", path: "/"`));
      }
    }
  });

  it('rolls one replica at a time behind one load balancer on the port, with budgets of one', () => {
    const { controllers, controllerService, relays, budgets } = planeOf(postgres());
    assert.deepEqual(controllers.spec?.strategy, {
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: 1, maxSurge: 0 },
    });
    assert.equal(relays.spec?.updateStrategy?.type, 'RollingUpdate');
    assert.equal(controllerService.spec?.type, 'LoadBalancer');
    assert.ok(selects(controllerService.spec?.selector, controllers.spec?.template.metadata?.labels ?? {}));
    assert.deepEqual(
      controllerService.spec?.ports?.map((port) => [port.port, port.targetPort]),
      [[4000, 'controller']],
    );
    assert.equal(only(controllers).ports?.find((port) => port.name === 'controller')?.containerPort, 4000);
    assert.deepEqual(
      budgets.map((budget) => [budget.metadata?.name, budget.spec?.maxUnavailable]),
      [
        ['portal-controller', 1],
        ['portal-relay', 1],
      ],
    );
    for (const [budget, workload] of [
      [budgets[0], controllers],
      [budgets[1], relays],
    ] as const)
      assert.deepEqual(budget?.spec?.selector?.matchLabels, workload.spec?.selector.matchLabels);
  });

  it('runs every pod as the node pods: user 10001, read-only root, nothing added, no API token', () => {
    const { controllers, relays } = planeOf(postgres());
    for (const workload of [controllers, relays]) {
      const pod = podOf(workload);
      assert.equal(pod.automountServiceAccountToken, false);
      assert.equal(pod.enableServiceLinks, false);
      assert.equal(pod.securityContext?.runAsUser, 10001);
      assert.equal(pod.securityContext?.runAsNonRoot, true);
      for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
        assert.equal(container.securityContext?.readOnlyRootFilesystem, true);
        assert.equal(container.securityContext?.allowPrivilegeEscalation, false);
        assert.deepEqual(container.securityContext?.capabilities, { drop: ['ALL'] });
      }
    }
  });

  it('runs each relay on its claim, announcing relay-<n>.<address>, behind a load balancer of its pod alone', () => {
    const { relays, relayServices } = planeOf(postgres());
    const pods = statefulPods(relays);
    assert.deepEqual(
      pods.map((pod) => flag(pod.args, '--public-address')),
      ['relay-1.portal.example.net:4100', 'relay-2.portal.example.net:4100'],
    );
    assert.equal(relayServices.length, 2);
    for (const [index, service] of relayServices.entries()) {
      const chosen = pods.filter((pod) => selects(service.spec?.selector, pod.labels)).map((pod) => pod.ordinal);
      assert.deepEqual(chosen, [index + 1], `${service.metadata?.name} selects relay ${index + 1} alone`);
      assert.equal(service.metadata?.name, `portal-relay-${index + 1}`);
      assert.deepEqual(
        service.spec?.ports?.map((port) => [port.port, port.targetPort]),
        [[4100, 'relay']],
      );
    }
    const container = only(relays);
    assert.equal(flag(pods[0]?.args ?? [], '--listen'), '0.0.0.0:4100');
    assert.equal(container.ports?.find((port) => port.name === 'relay')?.containerPort, 4100);
    // The ticket: optional, from its Secret; the identity on the claim; the key where the relay reads it.
    const variables = new Map((container.env ?? []).map((variable) => [variable.name, variable]));
    assert.deepEqual(variables.get('ENROLLMENT_TICKET')?.valueFrom?.secretKeyRef, {
      name: 'portal-relay-ticket',
      key: 'ticket',
      optional: true,
    });
    const home = variables.get('PORTAL_HOME')?.value ?? '';
    const pod = podOf(relays);
    const mounts = new Map((container.volumeMounts ?? []).map((mount) => [mount.mountPath, mount.name]));
    assert.equal(mounts.get(home), relays.spec?.volumeClaimTemplates?.[0]?.metadata?.name);
    const key = volumeAt(pod, container, relaySealingKeyFile(home));
    assert.equal(key.volume.emptyDir?.medium, 'Memory');
    const copier = pod.initContainers?.[0];
    const target = copier?.command?.at(-1) ?? '';
    assert.equal(copier?.volumeMounts?.find((mount) => mount.mountPath === dirname(target))?.name, key.volume.name);
    assert.equal(target.split('/').at(-1), relaySealingKeyFile(home).split('/').at(-1));
    assert.ok(pod.volumes?.some((volume) => volume.secret?.secretName === 'portal-relay-seal'));
  });

  it('names only flags that portal controller start and portal relay start take, with values they accept', async () => {
    await assert.rejects(parsedOptions(['controller', 'start', '--no-relays']), { code: 'commander.unknownOption' });
    const { controllers, relays } = planeOf(postgres());
    const url = 'postgres://portal@db.example.net:5432/portal?sslmode=verify-full';
    const controller = await parsedOptions(expand(only(controllers).args ?? [], { PORTAL_STORE_URL: url }));
    assert.equal(controller.relay, false);
    assert.equal(controller.store, url);
    assert.ok(parseStatusListen(String(controller.statusListen)));
    for (const address of [controller.listen, controller.publicAddress])
      assert.ok(parseHostPort(String(address), true).ok, String(address));
    for (const pod of statefulPods(relays)) {
      const relay = await parsedOptions(pod.args);
      assert.ok(parseStatusListen(String(relay.statusListen)));
      for (const address of [relay.listen, relay.publicAddress, relay.controller])
        assert.ok(parseHostPort(String(address), true).ok, String(address));
      // In the cluster, through the controllers' Service.
      assert.equal(relay.controller, 'portal-controller:4000');
    }
  });

  it('follows the manifest: replicas, relays, ports, address and image', () => {
    const files = artifacts(['address: cp.example.org', 'replicas: 5', 'relays: 3', 'port: 4443', 'relay-port: 4200']);
    const { controllers, controllerService, relays, relayServices, guide } = planeOf(files);
    assert.equal(controllers.spec?.replicas, 5);
    assert.equal(flag(only(controllers).args ?? [], '--listen'), '0.0.0.0:4443');
    assert.equal(flag(only(controllers).args ?? [], '--public-address'), 'cp.example.org:4443');
    assert.deepEqual(
      controllerService.spec?.ports?.map((port) => port.port),
      [4443],
    );
    assert.equal(relays.spec?.replicas, 3);
    assert.deepEqual(
      statefulPods(relays).map((pod) => flag(pod.args, '--public-address')),
      ['relay-1.cp.example.org:4200', 'relay-2.cp.example.org:4200', 'relay-3.cp.example.org:4200'],
    );
    assert.equal(flag(statefulPods(relays)[0]?.args ?? [], '--controller'), 'portal-controller:4443');
    assert.deepEqual(
      relayServices.map((service) => service.spec?.ports?.[0]?.port),
      [4200, 4200, 4200],
    );
    assert.match(guide, /portal project ticket --relay-node --usage-count 3 > relay\.ticket/);
    assert.match(files.get('control-plane/k8s/relays.yaml') ?? '', /--usage-count 3 > relay\.ticket/);
    const image = 'registry.example.net/portal-node:1.0';
    const withImage = planeOf(artifacts(['address: cp.example.org'], 'container:', `  image: ${image}`));
    for (const workload of [withImage.controllers, withImage.relays])
      assert.deepEqual(
        [...podOf(workload).containers, ...(podOf(workload).initContainers ?? [])].map((container) => container.image),
        [image, image],
      );
  });

  it('has a guide whose commands create the Secrets the files name, apply the files and watch their objects', () => {
    const files = postgres();
    const { controllers, relays, relayServices, guide } = planeOf(files);
    const commands = guideCommands(guide);
    const created = new Map(
      commands
        .filter((words) => words.slice(0, 4).join(' ') === 'kubectl create secret generic')
        .map((words) => [words[4], words.slice(5).map((word) => /^--from-(?:literal|file)=([^=]+)=/.exec(word)?.[1])]),
    );
    // Every Secret a pod reads, with each key it reads, is one the guide creates.
    const needed = new Map<string, Set<string>>();
    const need = (name: string | undefined, key: string | undefined) => {
      if (!name) return;
      needed.set(name, (needed.get(name) ?? new Set()).add(key ?? '*'));
    };
    for (const workload of [controllers, relays]) {
      const pod = podOf(workload);
      for (const volume of pod.volumes ?? []) {
        // A Secret mounted whole: the keys are the files the arguments name under its mount.
        const mount = only(workload).volumeMounts?.find((entry) => entry.name === volume.name);
        const named = (only(workload).args ?? []).filter((word) => mount && dirname(word) === mount.mountPath);
        const keys = volume.secret?.items?.map((item) => item.key) ?? named.map((word) => basename(word));
        for (const key of keys) need(volume.secret?.secretName, key);
      }
      for (const variable of only(workload).env ?? [])
        need(variable.valueFrom?.secretKeyRef?.name, variable.valueFrom?.secretKeyRef?.key);
    }
    assert.deepEqual([...needed.keys()].sort(), [...created.keys()].sort());
    for (const [name, keys] of needed)
      for (const key of keys) assert.ok(created.get(name)?.includes(key), `the guide puts ${key} in ${name}`);
    const applied = commands.filter((words) => words[1] === 'apply').map((words) => `control-plane/${words[3]}`);
    assert.deepEqual(applied, ['control-plane/k8s/controllers.yaml', 'control-plane/k8s/relays.yaml']);
    for (const path of applied) assert.ok(files.has(path));
    const rollouts = commands.filter((words) => words[1] === 'rollout').map((words) => words[3]);
    assert.deepEqual(
      [...new Set(rollouts)],
      [`deployment/${controllers.metadata?.name}`, `statefulset/${relays.metadata?.name}`],
    );
    assert.ok(commands.some((words) => words.join(' ') === `kubectl logs deployment/${controllers.metadata?.name}`));
    assert.ok(
      commands.some(
        (words) => words.join(' ') === `portal enroll --controller portal.example.net:4000 --code ${placeholderWord}`,
      ),
    );
    const listed = commands.find((words) => words.slice(0, 3).join(' ') === 'kubectl get services')?.slice(3);
    assert.deepEqual(
      listed,
      relayServices.map((service) => service.metadata?.name),
    );
    for (const n of [1, 2])
      assert.match(guide, new RegExp(`\\| \`relay-${n}\\.portal\\.example\\.net\` \\| \`portal-relay-${n}\` \\|`));
    assert.doesNotMatch(guide, /is an IP address/);
    assert.match(planeOf(artifacts(['address: 192.0.2.10'])).guide, /`192\.0\.2\.10` is an IP address/);
  });
});
