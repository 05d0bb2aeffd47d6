import assert from 'node:assert/strict';
import { kubernetesArtifacts, type KubernetesInput } from '../../src/compile/k8s/kubernetes.ts';
import { parseNodeConfig } from '../../src/node/config.ts';
import validateNodeConfig from '../../src/shared/validators/node-config.cjs';
import { imageConfig, readDockerfile, type ImageConfig } from '../support/dockerfile.ts';
import { declarationProblems, validatorProblems } from '../support/k8s-api-check.ts';
import {
  environment,
  listenPorts,
  multi,
  nodeContainer,
  nodeFiles,
  podSecurity,
  podSpec,
  single,
  substituted,
} from '../support/k8s-files.ts';

describe('Kubernetes manifests (k8s/outlet.yaml, k8s/inlet.yaml)', () => {
  let image: ImageConfig;

  before(async () => {
    image = imageConfig(await readDockerfile());
  });

  for (const [scenario, input] of [
    ['one portal', single],
    ['three portals on one pair of nodes', multi],
  ] as const) {
    describe(scenario, () => {
      const files = nodeFiles(input);
      const both = [
        ['outlet', files.outlet],
        ['inlet', files.inlet],
      ] as const;

      it('passes the validators of the Kubernetes API schemas (kubernetes-models), object by object', () => {
        const objects = [...files.outlet.objects, ...files.inlet.objects];
        assert.deepEqual(
          objects.map((object) => `${object.apiVersion} ${object.kind}`),
          [
            'v1 ConfigMap',
            'v1 ConfigMap',
            'v1 PersistentVolumeClaim',
            'apps/v1 Deployment',
            'v1 ConfigMap',
            'v1 PersistentVolumeClaim',
            'apps/v1 Deployment',
            'v1 Service',
          ],
          'each ConfigMap and claim before the Deployment that needs it, the Service last',
        );
        assert.deepEqual(objects.flatMap(validatorProblems), []);
      });

      it("has no field the API's declarations do not have, and no field of the wrong type", function () {
        this.timeout(20_000);
        assert.deepEqual(declarationProblems([...files.outlet.objects, ...files.inlet.objects]), []);
      });

      it('names every object after its node and labels it as the recommended labels say', () => {
        for (const [role, file] of both) {
          const node = `${input.usecase}-${role}`;
          const labels = {
            'app.kubernetes.io/component': role,
            'app.kubernetes.io/instance': node,
            'app.kubernetes.io/name': 'portal-node',
          };
          for (const object of file.objects) {
            assert.ok(
              object.metadata.name === node || object.metadata.name.startsWith(`${node}-`),
              `${object.kind}/${object.metadata.name} is named after ${node}`,
            );
            assert.match(object.metadata.name, /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/, 'a DNS label');
            assert.deepEqual(object.metadata.labels, labels);
          }
          assert.equal(file.deployment.metadata?.name, node);
          assert.deepEqual(file.deployment.spec?.template.metadata?.labels, labels);
          const selector = file.deployment.spec?.selector.matchLabels ?? {};
          for (const [key, value] of Object.entries(selector)) assert.equal(labels[key as keyof typeof labels], value);
          for (const service of file.services) assert.deepEqual(service.spec?.selector, selector);
        }
      });

      it('runs one node per identity: one replica, stopped before its replacement starts', () => {
        for (const [, file] of both) {
          assert.equal(file.deployment.spec?.replicas, 1);
          assert.deepEqual(file.deployment.spec?.strategy, { type: 'Recreate' });
          assert.ok((podSpec(file).terminationGracePeriodSeconds ?? 0) >= 30, "the node's drain fits in the grace");
        }
      });

      it('runs the command the compose file runs, with the compiled configuration from its ConfigMap', () => {
        for (const [role, file] of both) {
          const container = nodeContainer(file);
          assert.equal(container.image, input.image);
          assert.equal(container.command, undefined, "the image's entrypoint, portal, runs the arguments");
          assert.deepEqual(image.entrypoint, ['portal']);
          assert.deepEqual(container.args, [
            'node',
            'create',
            '--foreground',
            '--configuration',
            `/etc/portal/${role}.json`,
          ]);
          const mount = container.volumeMounts?.find((candidate) => candidate.mountPath === '/etc/portal');
          const volume = podSpec(file).volumes?.find((candidate) => candidate.name === mount?.name);
          assert.ok(mount?.readOnly);
          const map = file.configMaps.find((candidate) => candidate.metadata?.name === volume?.configMap?.name);
          const stored = map?.data?.[`${role}.json`];
          assert.ok(stored, `the ConfigMap ${volume?.configMap?.name} holds ${role}.json`);
          assert.deepEqual(JSON.parse(stored), input[role].config);
          const variables = environment(container);
          assert.equal(variables.get('NODE_LOGGING')?.value, 'true');
          assert.equal(variables.get('NODE_LOG_LEVEL')?.value, input.logLevel);
        }
      });

      it('keeps every secret out of the files: the ticket and the key are in Secrets the administrator makes', () => {
        for (const [role, file] of both) {
          assert.ok(!file.objects.some((object) => object.kind === 'Secret'), 'applying again never blanks a Secret');
          for (const map of file.configMaps)
            for (const [key, value] of Object.entries(map.data ?? {})) {
              assert.doesNotMatch(key, /ticket|seal|key$/i);
              assert.doesNotMatch(value, /"ticket"|^ticket:/m);
            }
          const containers = [...podSpec(file).containers, ...(podSpec(file).initContainers ?? [])];
          for (const container of containers)
            for (const argument of [...(container.command ?? []), ...(container.args ?? [])])
              assert.doesNotMatch(argument, /ticket|seal\.key=/i, `${container.name}: ${argument}`);
          const ticket = environment(nodeContainer(file)).get('ENROLLMENT_TICKET');
          assert.deepEqual(ticket, {
            name: 'ENROLLMENT_TICKET',
            valueFrom: { secretKeyRef: { name: `${input.usecase}-${role}-ticket`, key: 'ticket', optional: true } },
          });
          // The two Secrets the pod refers to are the two the file's header tells how to create.
          const secrets = new Set([
            ticket.valueFrom?.secretKeyRef?.name,
            ...(podSpec(file).volumes ?? []).flatMap((volume) => volume.secret?.secretName ?? []),
          ]);
          assert.deepEqual([...secrets].sort(), [
            `${input.usecase}-${role}-sealing-key`,
            `${input.usecase}-${role}-ticket`,
          ]);
          assert.ok(
            file.text.includes(
              `#   kubectl create secret generic ${input.usecase}-${role}-ticket --from-file=ticket=${role}.ticket\n`,
            ),
          );
          assert.ok(
            file.text.includes(
              `#   openssl rand -base64 32 | kubectl create secret generic ${input.usecase}-${role}-sealing-key ` +
                '--from-file=node-seal.key=/dev/stdin\n',
            ),
          );
        }
      });

      it('mounts the sealing key apart from the state: a copy made from its Secret, in memory, read-only', () => {
        for (const [, file] of both) {
          const spec = podSpec(file);
          const container = nodeContainer(file);
          const volumes = new Map((spec.volumes ?? []).map((volume) => [volume.name, volume]));
          const mountOf = (path: string) => container.volumeMounts?.find((mount) => mount.mountPath === path);
          const variables = environment(container);
          const home = variables.get('PORTAL_HOME')?.value ?? '';
          const keyFile = variables.get('PORTAL_SEALING_KEY_FILE')?.value ?? '';
          assert.equal(home, image.env.PORTAL_HOME);
          assert.equal(keyFile, image.env.PORTAL_SEALING_KEY_FILE);
          const keys = keyFile.slice(0, keyFile.lastIndexOf('/'));
          assert.ok(!keys.startsWith(`${home}/`) && keys !== home, 'the key directory is not under PORTAL_HOME');
          assert.ok(!home.startsWith(`${keys}/`), 'nor the other way round');
          const state = mountOf(home);
          assert.ok(state && !state.readOnly);
          assert.ok(volumes.get(state.name)?.persistentVolumeClaim, 'the state is on the claim');
          const key = mountOf(keys);
          assert.ok(key?.readOnly, 'the node mounts its key read-only');
          assert.deepEqual(volumes.get(key.name)?.emptyDir?.medium, 'Memory', 'never on a disk');
          assert.ok(
            !container.volumeMounts?.some((mount) => volumes.get(mount.name)?.secret),
            'the node container mounts no Secret',
          );
          const [copier, ...others] = spec.initContainers ?? [];
          assert.ok(copier && others.length === 0);
          const secretMount = copier.volumeMounts?.find((mount) => volumes.get(mount.name)?.secret);
          assert.ok(secretMount?.readOnly, 'the Secret is mounted read-only');
          const secret = volumes.get(secretMount.name)?.secret;
          assert.deepEqual(secret?.items, [{ key: 'node-seal.key', path: 'node-seal.key' }]);
          assert.equal(secret?.defaultMode, 0o440, "readable by the pod's group only");
          assert.ok(copier.volumeMounts?.some((mount) => mount.name === key.name && mount.mountPath === keys));
          assert.deepEqual(copier.command, [
            'install',
            '-m',
            '0600',
            `${secretMount.mountPath}/node-seal.key`,
            keyFile,
          ]);
          assert.equal(copier.image, input.image);
        }
      });

      it("runs as the image's numeric user, with no privilege to gain and a read-only root", () => {
        for (const [, file] of both) {
          const spec = podSpec(file);
          assert.equal(spec.securityContext?.runAsUser, image.user.uid);
          assert.equal(spec.securityContext?.runAsGroup, image.user.gid);
          assert.equal(spec.securityContext?.fsGroup, image.user.gid);
          assert.equal(spec.securityContext?.runAsNonRoot, true);
          assert.deepEqual(spec.securityContext?.seccompProfile, { type: 'RuntimeDefault' });
          assert.equal(spec.automountServiceAccountToken, false, 'the node asks nothing of the Kubernetes API');
          assert.equal(spec.hostNetwork, undefined);
          for (const container of [...spec.containers, ...(spec.initContainers ?? [])]) {
            assert.deepEqual(container.securityContext, {
              allowPrivilegeEscalation: false,
              capabilities: { drop: ['ALL'] },
              privileged: false,
              readOnlyRootFilesystem: true,
              runAsNonRoot: true,
            });
          }
          // Everything the node writes is under PORTAL_HOME, the one writable mount of its container.
          const writable = nodeContainer(file).volumeMounts?.filter((mount) => !mount.readOnly);
          assert.deepEqual(
            writable?.map((mount) => mount.mountPath),
            [image.env.PORTAL_HOME],
          );
        }
      });

      it('probes from inside the container: readiness asks if a portal serves, liveness whether it answers', () => {
        for (const [role, file] of both) {
          const container = nodeContainer(file);
          const port = input[role].config['http-server-port'];
          const server = `host: "127.0.0.1", port: ${port}`;
          const [program, flag, ready] = container.readinessProbe?.exec?.command ?? [];
          assert.deepEqual([program, flag], ['node', '-e']);
          assert.ok(ready?.includes(`${server}, method: "GET", path: "/readyz"`), ready);
          assert.ok(
            ready?.includes('if (response.statusCode === 200) process.exit(0);'),
            'ready as portal node show --ready says it: 200 from /readyz',
          );
          for (const probe of [container.startupProbe, container.livenessProbe]) {
            const [live, liveFlag, script] = probe?.exec?.command ?? [];
            assert.deepEqual([live, liveFlag], ['node', '-e']);
            assert.ok(script?.includes(`${server}, method: "GET", path: "/healthz"`), script);
          }
          for (const probe of [container.startupProbe, container.livenessProbe, container.readinessProbe]) {
            assert.equal(probe?.httpGet, undefined, 'the status server listens on 127.0.0.1 only');
            assert.equal(probe?.tcpSocket, undefined);
            assert.ok((probe?.timeoutSeconds ?? 1) >= 5);
          }
        }
      });

      it('opens a Service port for each port the inlet listens on, each to the container port of its name', () => {
        const [service, ...more] = files.inlet.services;
        assert.ok(service && more.length === 0);
        assert.equal(files.outlet.services.length, 0, 'the outlet needs outbound network only');
        assert.equal(service.metadata?.name, `${input.usecase}-inlet`);
        assert.equal(service.spec?.type, 'ClusterIP');
        const ports = service.spec?.ports ?? [];
        assert.deepEqual(
          ports.map((port) => port.port).sort((a, b) => a - b),
          listenPorts(input.inlet.config).sort((a, b) => a - b),
        );
        const containerPorts = nodeContainer(files.inlet).ports ?? [];
        assert.equal(containerPorts.length, ports.length);
        for (const port of ports) {
          assert.match(port.name ?? '', /^(?=.{1,15}$)(?=.*[a-z])[a-z0-9]+(-[a-z0-9]+)*$/, 'an IANA service name');
          assert.equal(port.protocol, 'TCP');
          const target = containerPorts.find((candidate) => candidate.name === port.targetPort);
          assert.equal(target?.containerPort, port.port, `${port.name} reaches the container port of its name`);
          const given = input.inlet.ports.find((entry) => entry.port === port.port);
          assert.equal(port.name, given && given.name.length <= 15 ? given.name : `tcp-${port.port}`);
        }
      });

      it('lets the inlet bind a port below 1024 through the namespaced sysctl, and only then', () => {
        const lowest = Math.min(...listenPorts(input.inlet.config));
        const sysctls = podSecurity(files.inlet)?.sysctls;
        assert.deepEqual(
          sysctls,
          lowest < 1024 ? [{ name: 'net.ipv4.ip_unprivileged_port_start', value: String(lowest) }] : undefined,
        );
        assert.equal(podSecurity(files.outlet)?.sysctls, undefined);
      });

      it("gives the outlet its endpoints from a ConfigMap of the manifest's examples, for the administrator", () => {
        const endpoints = files.outlet.configMaps.find(
          (candidate) => candidate.metadata?.name === `${input.usecase}-outlet-endpoints`,
        );
        const data = endpoints?.data ?? {};
        assert.deepEqual(
          data,
          Object.fromEntries(input.outlet.endpoints.map((endpoint) => [endpoint.placeholder, endpoint.example])),
        );
        const variables = environment(nodeContainer(files.outlet));
        for (const { placeholder, label } of input.outlet.endpoints) {
          assert.deepEqual(variables.get(placeholder)?.valueFrom, {
            configMapKeyRef: { name: `${input.usecase}-outlet-endpoints`, key: placeholder },
          });
          assert.ok(
            files.outlet.text.includes(`  # ${label}: replace the example with yours.\n  ${placeholder}: `),
            `a comment above ${placeholder}`,
          );
        }
        // Substituted as the node will, the configuration is one the node takes.
        const resolved = substituted(input.outlet.config, data);
        assert.equal(validateNodeConfig(resolved), true, JSON.stringify(validateNodeConfig.errors));
        if (resolved['tcp-outlet']) parseNodeConfig('outlet.json', JSON.stringify(resolved));
        assert.ok(!environment(nodeContainer(files.inlet)).has(input.outlet.endpoints[0]?.placeholder ?? ''));
      });

      it('refers only to objects of its own file, apart from the two Secrets', () => {
        for (const [, file] of both) {
          const names = (kind: string) =>
            new Set(file.objects.filter((object) => object.kind === kind).map((object) => object.metadata.name));
          const spec = podSpec(file);
          for (const volume of spec.volumes ?? []) {
            if (volume.configMap) assert.ok(names('ConfigMap').has(volume.configMap.name ?? ''));
            if (volume.persistentVolumeClaim)
              assert.ok(names('PersistentVolumeClaim').has(volume.persistentVolumeClaim.claimName));
          }
          for (const variable of nodeContainer(file).env ?? []) {
            const reference = variable.valueFrom?.configMapKeyRef;
            if (reference) assert.ok(names('ConfigMap').has(reference.name ?? ''), reference.name);
          }
          const volumeNames = new Set((spec.volumes ?? []).map((volume) => volume.name));
          for (const container of [...spec.containers, ...(spec.initContainers ?? [])])
            for (const mount of container.volumeMounts ?? []) assert.ok(volumeNames.has(mount.name), mount.name);
          const [claim] = file.claims;
          assert.deepEqual(claim?.spec?.accessModes, ['ReadWriteOnce']);
        }
      });

      it('is the same text for the same input', () => {
        const again = nodeFiles(input);
        assert.equal(again.outlet.text, files.outlet.text);
        assert.equal(again.inlet.text, files.inlet.text);
      });
    });
  }

  describe('what it refuses and what it survives', () => {
    const withInlet = (inlet: Partial<KubernetesInput['inlet']>): KubernetesInput => ({
      ...single,
      inlet: { ...single.inlet, ...inlet },
    });

    it('refuses a configuration that carries a ticket: a ConfigMap is no place for one', () => {
      const config = { ...single.outlet.config, ticket: 'secret-ticket' };
      assert.throws(
        () => kubernetesArtifacts({ ...single, outlet: { ...single.outlet, config } }),
        /outlet configuration carries a ticket/,
      );
    });

    it('refuses an inlet on loopback, which its Service could not reach', () => {
      const config = {
        ...single.inlet.config,
        'tcp-inlet': { ...single.inlet.config['tcp-inlet']!, from: '127.0.0.1:15432' },
      };
      assert.throws(() => kubernetesArtifacts(withInlet({ config })), /127\.0\.0\.1:15432 is loopback/);
    });

    it('refuses Service ports that differ from where the inlet listens', () => {
      assert.throws(
        () => kubernetesArtifacts(withInlet({ ports: [{ name: 'postgres', port: 5432 }] })),
        /inlet ports 5432 differ from the ports it listens on, 15432/,
      );
    });

    it('refuses a status server on a port the system chooses: the probes need to know it', () => {
      const config = { ...single.inlet.config, 'http-server-port': 0 };
      assert.throws(() => kubernetesArtifacts(withInlet({ config })), /http-server-port 0/);
    });

    it('refuses an endpoint placeholder that is not a variable name', () => {
      const endpoints = [{ placeholder: 'postgres endpoint', label: 'x', example: 'y' }];
      assert.throws(
        () => kubernetesArtifacts({ ...single, outlet: { ...single.outlet, endpoints } }),
        /not a variable name/,
      );
    });

    it('keeps a hostile title and label inside their comments', () => {
      const hostile = 'DB\nkind: Secret\r\n---\u2028data: {}';
      const input: KubernetesInput = {
        ...single,
        title: hostile,
        outlet: { ...single.outlet, endpoints: [{ ...single.outlet.endpoints[0]!, label: hostile }] },
      };
      const files = nodeFiles(input);
      const plain = nodeFiles(single);
      assert.deepEqual(files.outlet.objects, plain.outlet.objects);
      assert.deepEqual(files.inlet.objects, plain.inlet.objects);
      const lines = files.outlet.text.split('\n').filter((line) => line.includes('kind: Secret'));
      assert.equal(lines.length, 2, 'the title in the header, the label above its endpoint');
      for (const line of lines) assert.match(line, /^\s*# .*DB kind: Secret {2}--- data: \{\}/);
    });
  });
});
