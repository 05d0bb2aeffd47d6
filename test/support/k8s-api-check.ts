/**
 * An independent check of Kubernetes objects against the Kubernetes API, from the kubernetes-models
 * package (generated from the API's OpenAPI document), in two ways:
 * - its validators (`.validate()`): types, enumerations, required fields and formats at every depth;
 * - its TypeScript declarations, through the type checker: what the validators let pass, above all a
 *   field the API does not have (a typo such as `runAsNonRot` would be dropped by the API server, and
 *   with it the protection it was written for).
 * Objects are checked as parsed from the emitted YAML, not as built.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Service } from 'kubernetes-models/v1/Service';
import { parseAllDocuments } from 'yaml';
import { projectRoot } from './usecases.ts';

/** The kinds the compiler emits: model class, and the module and interface that declare them. */
const kinds = {
  'apps/v1 Deployment': { model: Deployment, module: 'kubernetes-models/apps/v1/Deployment', type: 'IDeployment' },
  'apps/v1 StatefulSet': { model: StatefulSet, module: 'kubernetes-models/apps/v1/StatefulSet', type: 'IStatefulSet' },
  'policy/v1 PodDisruptionBudget': {
    model: PodDisruptionBudget,
    module: 'kubernetes-models/policy/v1/PodDisruptionBudget',
    type: 'IPodDisruptionBudget',
  },
  'v1 ConfigMap': { model: ConfigMap, module: 'kubernetes-models/v1/ConfigMap', type: 'IConfigMap' },
  'v1 PersistentVolumeClaim': {
    model: PersistentVolumeClaim,
    module: 'kubernetes-models/v1/PersistentVolumeClaim',
    type: 'IPersistentVolumeClaim',
  },
  'v1 Service': { model: Service, module: 'kubernetes-models/v1/Service', type: 'IService' },
} as const;

type Kind = keyof typeof kinds;

export interface KubernetesObjectLike {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly labels?: Record<string, string> };
  readonly [field: string]: unknown;
}

/** The documents of a multi-document file, read as kubectl reads them (YAML 1.1). */
export function parseKubernetesFile(text: string): KubernetesObjectLike[] {
  return parseAllDocuments(text, { version: '1.1' }).map((document) => {
    if (document.errors.length > 0) throw new Error(document.errors.map((error) => error.message).join('; '));
    return document.toJS() as KubernetesObjectLike;
  });
}

const kindOf = (object: KubernetesObjectLike): string => `${object.apiVersion} ${object.kind}`;
const known = (kind: string): kind is Kind => kind in kinds;
const describe = (object: KubernetesObjectLike) => `${object.kind}/${object.metadata?.name ?? '?'}`;

/** What the validators of kubernetes-models refuse in `object`, one line per problem. */
export function validatorProblems(object: KubernetesObjectLike): string[] {
  const kind = kindOf(object);
  if (!known(kind)) return [`${describe(object)}: ${kind} is not a kind this check knows`];
  try {
    new kinds[kind].model(object).validate();
    return [];
  } catch (error) {
    return (error as Error).message.split('\n').map((line) => `${describe(object)}: ${line}`);
  }
}

/** A file beside the tests, so that module resolution finds kubernetes-models; it is never written. */
const checkedFile = join(projectRoot, 'test/support/kubernetes-objects.generated.ts');

const compilerOptions: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  skipLibCheck: true,
  lib: ['lib.es2022.d.ts'],
  types: [],
};

/** Declarations parsed once for every check of this process: parsing them is most of a check's time. */
const parsedDeclarations = new Map<string, ts.SourceFile | undefined>();

/**
 * What the TypeScript declarations of kubernetes-models refuse in `objects` (each written as a literal of
 * its kind's interface, so an unknown field at any depth is an error), one line per problem.
 */
export function declarationProblems(objects: readonly KubernetesObjectLike[]): string[] {
  const problems = objects
    .filter((object) => !known(kindOf(object)))
    .map((object) => `${describe(object)}: unknown kind`);
  const checked = objects.filter((object) => known(kindOf(object)));
  const imports = Object.values(kinds).map(({ module, type }) => `import type { ${type} } from '${module}';`);
  const lines = checked.map((object, index) => {
    const { type } = kinds[kindOf(object) as Kind];
    return `export const object${index}: ${type} = ${JSON.stringify(object)};`;
  });
  const source = [...imports, ...lines].join('\n');
  const host = ts.createCompilerHost(compilerOptions);
  const readSource = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) => {
    if (name === checkedFile) return ts.createSourceFile(name, source, language);
    if (!parsedDeclarations.has(name)) parsedDeclarations.set(name, readSource(name, language, ...rest));
    return parsedDeclarations.get(name);
  };
  const exists = host.fileExists.bind(host);
  host.fileExists = (name) => name === checkedFile || exists(name);
  const program = ts.createProgram([checkedFile], compilerOptions, host);
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
    const file = diagnostic.file;
    const line =
      file && diagnostic.start !== undefined ? file.getLineAndCharacterOfPosition(diagnostic.start).line : -1;
    const object = checked[line - imports.length];
    problems.push(`${object ? describe(object) : checkedFile}: ${text}`);
  }
  return problems;
}
