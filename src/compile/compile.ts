/**
 * The compiler: a validated manifest in, the use case's artifacts out as {path, content}. Pure: only
 * the CLI writes them (src/cli/write-outputs.ts).
 */
import type { UseCaseManifest } from '../shared/types/manifest.ts';
import { toStableJson, toStableYaml } from '../shared/serialize.ts';
import { composeFile } from './compose.ts';
import { guideContext } from './guide.ts';
import { outletConfig, stackInletConfig } from './node-config.ts';
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

export function compileUseCase(manifest: UseCaseManifest): Artifact[] {
  const outlet = outletConfig(manifest);
  const inlet = stackInletConfig(manifest);
  const guide = guideContext(manifest);
  const artifacts = [
    file('tickets.sh', renderTemplate('tickets.sh.hbs', guide), 0o755),
    file('outlet.json', toStableJson(outlet)),
    file('inlet.json', toStableJson(inlet)),
    file('outlet.stack.yaml', printCfnYaml(nodeStack(manifest, 'outlet', outlet))),
    file('inlet.stack.yaml', printCfnYaml(nodeStack(manifest, 'inlet', inlet))),
    file('README.md', renderTemplate('README.md.hbs', guide)),
  ];
  if (manifest.container) {
    artifacts.push(file('inlet.compose.yaml', toStableYaml(composeFile(manifest, manifest.container))));
  }
  if (manifest.verification.kind === 'webhook') {
    const receiver = renderTemplate('webhook_receiver.py.hbs', {
      title: manifest.title,
      path: manifest.verification.path,
      port: webhookPort(manifest),
      inletPort: manifest.inlet.port,
    });
    artifacts.push(file('webhook_receiver.py', receiver, 0o755));
  }
  return artifacts.sort((a, b) => a.path.localeCompare(b.path));
}

/** The receiver listens where the outlet forwards: the port of tcp-outlet.to. */
function webhookPort(manifest: UseCaseManifest): number {
  return Number(manifest.outlet.to.slice(manifest.outlet.to.lastIndexOf(':') + 1));
}
