/**
 * The control plane's two Kubernetes files read back as kubectl reads them, and what the kubelet and
 * the API server would make of them: a StatefulSet's pods with their names, labels and expanded
 * arguments, the volume a file lies on, and the options `portal` parses from a pod's arguments.
 */
import assert from 'node:assert/strict';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IService } from 'kubernetes-models/v1/Service';
import { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.ts';
import { registerController } from '../../src/cli/controller.ts';
import { registerRelay } from '../../src/cli/relay.ts';
import { shellBlocks } from './doc-shell-blocks.ts';
import { parseKubernetesFile } from './k8s-api-check.ts';
import { simpleCommands } from './shell-words.ts';

export interface Plane {
  readonly controllers: IDeployment;
  readonly controllerService: IService;
  readonly relays: IStatefulSet;
  readonly relayServices: IService[];
  readonly budgets: IPodDisruptionBudget[];
  readonly guide: string;
}

export function planeOf(files: Map<string, string>): Plane {
  const read = (path: string) => {
    const text = files.get(`control-plane/${path}`);
    assert.ok(text !== undefined, `control-plane/${path} is compiled`);
    return parseKubernetesFile(text) as unknown as { kind: string; metadata: { name: string } }[];
  };
  const objects = [...read('k8s/controllers.yaml'), ...read('k8s/relays.yaml')];
  const ofKind = <T>(kind: string) => objects.filter((object) => object.kind === kind) as unknown as T[];
  const services = ofKind<IService>('Service');
  const [controllers] = ofKind<IDeployment>('Deployment');
  const [relays] = ofKind<IStatefulSet>('StatefulSet');
  const controllerService = services.find((service) => service.metadata?.name === controllers?.metadata?.name);
  assert.ok(controllers && relays && controllerService);
  const guide = files.get('control-plane/README.md') ?? '';
  return {
    controllers,
    controllerService,
    relays,
    relayServices: services.filter((service) => service.spec?.type === 'LoadBalancer' && service !== controllerService),
    budgets: ofKind('PodDisruptionBudget'),
    guide: guide.slice(guide.indexOf('\n## Kubernetes'), guide.indexOf('\n## ', guide.indexOf('\n## Kubernetes') + 1)),
  };
}

export const podOf = (workload: IDeployment | IStatefulSet): IPodSpec => {
  const spec = workload.spec?.template.spec;
  assert.ok(spec);
  return spec;
};

export const only = (workload: IDeployment | IStatefulSet): IContainer => {
  const [container, ...more] = podOf(workload).containers;
  assert.ok(container && more.length === 0);
  return container;
};

/** The value after `flag`. */
export const flag = (args: readonly string[], name: string): string => {
  const at = args.indexOf(name);
  assert.ok(at >= 0 && at + 1 < args.length, `${name} is given a value`);
  return args[at + 1] as string;
};

/** Where a file of the container lies: the volume of the deepest mount that holds it. */
export const volumeAt = (pod: IPodSpec, container: IContainer, path: string) => {
  const holding = (container.volumeMounts ?? []).filter((entry) => path.startsWith(`${entry.mountPath}/`));
  const mount = holding.sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
  assert.ok(mount, `a volume holds ${path}`);
  const volume = pod.volumes?.find((entry) => entry.name === mount.name);
  assert.ok(volume);
  return { mount, volume };
};

/** `$(NAME)` as the kubelet expands it, from the container's environment. */
export const expand = (args: readonly string[], values: Record<string, string>): string[] =>
  args.map((word) => word.replace(/\$\(([A-Z_]+)\)/g, (_, name: string) => values[name] ?? `$(${name})`));

/**
 * The pods of a StatefulSet as the API server makes them: named <set>-<ordinal> from ordinals.start,
 * with the set's two labels, and the environment each relay's fieldRef resolves to.
 */
export function statefulPods(set: IStatefulSet) {
  const start = set.spec?.ordinals?.start ?? 0;
  return Array.from({ length: set.spec?.replicas ?? 1 }, (_, index) => {
    const ordinal = start + index;
    const name = `${set.metadata?.name}-${ordinal}`;
    const labels: Record<string, string> = {
      ...set.spec?.template.metadata?.labels,
      'statefulset.kubernetes.io/pod-name': name,
      'apps.kubernetes.io/pod-index': String(ordinal),
    };
    const environment = Object.fromEntries(
      (only(set).env ?? []).flatMap((variable) => {
        const path = variable.valueFrom?.fieldRef?.fieldPath;
        const label = path && /^metadata\.labels\['(.+)'\]$/.exec(path)?.[1];
        return label ? [[variable.name, labels[label] ?? '']] : [];
      }),
    );
    return { ordinal, name, labels, args: expand(only(set).args ?? [], environment) };
  });
}

export const selects = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
  Object.entries(selector ?? {}).every(([key, value]) => labels[key] === value);

/** The options `portal <args>` parses to, with the command's action replaced: nothing runs. */
export async function parsedOptions(args: readonly string[]): Promise<Record<string, unknown>> {
  const program = buildProgram([registerController, registerRelay]);
  let parsed: Record<string, unknown> | undefined;
  const [group, name] = args;
  const command = program.commands
    .find((entry) => entry.name() === group)
    ?.commands.find((entry) => entry.name() === name);
  assert.ok(command instanceof Command, `portal ${group} ${name} exists`);
  // A refusal is the caller's to check: commander's own message would only clutter the report.
  command.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  command.action((options: Record<string, unknown>) => {
    parsed = options;
  });
  await program.parseAsync([...args], { from: 'user' });
  assert.ok(parsed);
  return parsed;
}

export const guideCommands = (guide: string): string[][] =>
  shellBlocks(guide).flatMap((block) =>
    block.commands.flatMap((line) => simpleCommands(line.text).map((command) => [...command.words])),
  );
