/**
 * The compiler: a validated manifest in, the use case's artifacts out as {path, content}. Pure: only
 * the CLI writes them (src/cli/write-outputs.ts).
 */
import type { UseCaseManifest } from '../shared/types/manifest.ts';
import { toStableJson, toStableYaml } from '../shared/serialize.ts';
import { composeFile, outletComposeFile } from './compose.ts';
import { controlPlaneArtifacts } from './control-plane/compile.ts';
import { guideContext } from './guide.ts';
import { kubernetesArtifacts } from './k8s/kubernetes.ts';
import { kubernetesInput } from './kubernetes-input.ts';
import { resolveUseCase, type CompileSettings, type UseCase } from './model.ts';
import { hostInletConfig, outletConfig, stackInletConfig } from './node-config.ts';
import { printCfnYaml } from './stack/cfn-yaml.ts';
import { nodeStack } from './stack/stack.ts';
import { renderTemplate } from './templates.ts';

export interface Artifact {
  /** Path relative to the use case's output folder. */
  readonly path: string;
  readonly content: string;
  /** Unix permission bits. */
  readonly mode: number;
}

const file = (path: string, content: string, mode = 0o644): Artifact => ({ path, content, mode });

export function compileUseCase(manifest: UseCaseManifest, settings: CompileSettings = {}): Artifact[] {
  return compileResolved(resolveUseCase(manifest, settings));
}

export function compileResolved(useCase: UseCase): Artifact[] {
  const outlet = outletConfig(useCase);
  const inlet = stackInletConfig(useCase);
  const guide = guideContext(useCase);
  const artifacts = [
    file('tickets.sh', renderTemplate('tickets.sh.hbs', guide), 0o755),
    file('outlet.json', toStableJson(outlet)),
    file('inlet.json', toStableJson(hostInletConfig(useCase))),
    file('outlet.stack.yaml', printCfnYaml(nodeStack(useCase, 'outlet', outlet))),
    file('inlet.stack.yaml', printCfnYaml(nodeStack(useCase, 'inlet', inlet))),
    file('README.md', renderTemplate('README.md.hbs', guide)),
    file('outlet.compose.yaml', toStableYaml(outletComposeFile(useCase))),
    file('inlet.compose.yaml', toStableYaml(composeFile(useCase, useCase.container ?? {}))),
    ...kubernetesArtifacts(kubernetesInput(useCase, outlet)).map(({ path, content }) => file(path, content)),
    ...controlPlaneArtifacts(useCase).map(({ path, content }) => file(path, content)),
  ];
  for (const portal of useCase.portals) {
    const { verification } = portal;
    if (verification.kind !== 'webhook') continue;
    // The receiver listens where the outlet forwards: the port of tcp-outlet.to.
    const receiver = renderTemplate('webhook_receiver.py.hbs', {
      title: useCase.title,
      path: verification.path,
      port: Number(portal.outlet.to.slice(portal.outlet.to.lastIndexOf(':') + 1)),
      inletPort: portal.inlet.port,
    });
    const name = useCase.listed ? `webhook_receiver_${portal.name.replace(/-/g, '_')}.py` : 'webhook_receiver.py';
    artifacts.push(file(name, receiver, 0o755));
  }
  return artifacts.sort((a, b) => a.path.localeCompare(b.path));
}
