/**
 * An independent check of CloudFormation templates against the CloudFormation resource specification
 * (the JSON that @aws-cdk/cfnspec ships): resource types, property names and types, required
 * properties, and every Ref / GetAtt / Sub target.
 */
import { createRequire } from 'node:module';

interface PropertySpec {
  readonly Required?: boolean;
  readonly PrimitiveType?: string;
  readonly PrimitiveItemType?: string;
  readonly Type?: string;
  readonly ItemType?: string;
}

interface TypeSpec {
  readonly Properties?: Readonly<Record<string, PropertySpec>>;
  readonly Attributes?: Readonly<Record<string, unknown>>;
}

interface Specification {
  readonly ResourceSpecificationVersion: string;
  readonly ResourceTypes: Readonly<Record<string, TypeSpec>>;
  readonly PropertyTypes: Readonly<Record<string, TypeSpec>>;
}

const specification = createRequire(import.meta.url)('@aws-cdk/cfnspec/spec/specification.json') as Specification;

export const specificationVersion = specification.ResourceSpecificationVersion;

const pseudoParameters = new Set([
  'AWS::AccountId',
  'AWS::NotificationARNs',
  'AWS::NoValue',
  'AWS::Partition',
  'AWS::Region',
  'AWS::StackId',
  'AWS::StackName',
  'AWS::URLSuffix',
]);

const topLevelKeys = new Set([
  'AWSTemplateFormatVersion',
  'Description',
  'Metadata',
  'Parameters',
  'Mappings',
  'Conditions',
  'Transform',
  'Resources',
  'Outputs',
]);
const resourceKeys = new Set([
  'Type',
  'Properties',
  'DependsOn',
  'Condition',
  'Metadata',
  'DeletionPolicy',
  'UpdateReplacePolicy',
  'CreationPolicy',
  'UpdatePolicy',
]);
const deletionPolicies = new Set(['Delete', 'Retain', 'RetainExceptOnCreate', 'Snapshot']);
/**
 * The resource types whose DeletionPolicy and UpdateReplacePolicy may be Snapshot (CloudFormation's
 * DeletionPolicy attribute).
 */
const snapshotTypes = new Set([
  'AWS::DocDB::DBCluster',
  'AWS::EC2::Volume',
  'AWS::ElastiCache::CacheCluster',
  'AWS::ElastiCache::ReplicationGroup',
  'AWS::Neptune::DBCluster',
  'AWS::RDS::DBCluster',
  'AWS::RDS::DBInstance',
  'AWS::Redshift::Cluster',
]);
const parameterKeys = new Set([
  'Type',
  'Default',
  'Description',
  'NoEcho',
  'AllowedPattern',
  'AllowedValues',
  'ConstraintDescription',
  'MinLength',
  'MaxLength',
  'MinValue',
  'MaxValue',
]);
const parameterTypes = [
  /^String$/,
  /^Number$/,
  /^List<Number>$/,
  /^CommaDelimitedList$/,
  /^AWS::EC2::[A-Za-z]+::[A-Za-z]+$/,
  /^List<AWS::EC2::[A-Za-z]+::[A-Za-z]+>$/,
  /^AWS::SSM::Parameter::(Name|Value<[A-Za-z0-9:<>]+>)$/,
];

type Template = {
  readonly Parameters?: Record<string, Record<string, unknown>>;
  readonly Conditions?: Record<string, unknown>;
  readonly Resources?: Record<
    string,
    {
      Type?: string;
      Properties?: Record<string, unknown>;
      DependsOn?: unknown;
      Condition?: unknown;
      DeletionPolicy?: unknown;
      UpdateReplacePolicy?: unknown;
    }
  >;
  readonly Outputs?: Record<string, { Value?: unknown }>;
  readonly Metadata?: Record<string, unknown>;
} & Record<string, unknown>;

/** Every problem of the template, as "path: message" lines; empty when it conforms. */
export function checkTemplate(template: Template): string[] {
  const problems: string[] = [];
  const parameters = template.Parameters ?? {};
  const resources = template.Resources ?? {};
  const report = (path: string, message: string) => problems.push(`${path}: ${message}`);

  for (const key of Object.keys(template)) if (!topLevelKeys.has(key)) report(key, 'unknown top-level section');
  if (Object.keys(resources).length === 0) report('Resources', 'a template needs at least one resource');

  for (const [id, parameter] of Object.entries(parameters)) {
    for (const key of Object.keys(parameter))
      if (!parameterKeys.has(key)) report(`Parameters.${id}.${key}`, 'unknown parameter attribute');
    const type = String(parameter.Type);
    if (!parameterTypes.some((pattern) => pattern.test(type)))
      report(`Parameters.${id}.Type`, `unknown parameter type ${type}`);
    if (typeof parameter.AllowedPattern === 'string' && typeof parameter.Default === 'string') {
      if (!new RegExp(parameter.AllowedPattern).test(parameter.Default))
        report(`Parameters.${id}.Default`, 'does not match AllowedPattern');
    }
  }

  const references = new ReferenceCheck(parameters, resources, report);
  for (const [id, resource] of Object.entries(resources)) {
    const path = `Resources.${id}`;
    for (const key of Object.keys(resource))
      if (!resourceKeys.has(key)) report(`${path}.${key}`, 'unknown resource attribute');
    const dependsOn = resource.DependsOn === undefined ? [] : ([] as unknown[]).concat(resource.DependsOn);
    for (const target of dependsOn)
      if (typeof target !== 'string' || !(target in resources))
        report(`${path}.DependsOn`, `no resource ${String(target)}`);
    for (const policy of ['DeletionPolicy', 'UpdateReplacePolicy'] as const) {
      const value = resource[policy];
      if (value === undefined) continue;
      if (!deletionPolicies.has(shown(value))) report(`${path}.${policy}`, `unknown policy ${shown(value)}`);
      else if (value === 'Snapshot' && !snapshotTypes.has(String(resource.Type)))
        report(`${path}.${policy}`, `${String(resource.Type)} cannot be snapshot`);
      else if (value === 'RetainExceptOnCreate' && policy === 'UpdateReplacePolicy')
        report(`${path}.${policy}`, 'RetainExceptOnCreate is a DeletionPolicy only');
    }
    if (resource.Condition !== undefined && !(shown(resource.Condition) in (template.Conditions ?? {}))) {
      report(`${path}.Condition`, `no condition ${shown(resource.Condition)}`);
    }
    const typeSpec = resource.Type ? specification.ResourceTypes[resource.Type] : undefined;
    if (!typeSpec) {
      report(`${path}.Type`, `unknown resource type ${String(resource.Type)}`);
      continue;
    }
    checkProperties(
      { resourceType: resource.Type as string, report, references },
      typeSpec,
      resource.Properties ?? {},
      `${path}.Properties`,
    );
  }

  for (const [id, output] of Object.entries(template.Outputs ?? {})) {
    if (output.Value === undefined) report(`Outputs.${id}`, 'an output needs a Value');
    references.walk(output.Value, `Outputs.${id}.Value`);
  }
  references.walk(template.Metadata, 'Metadata');
  for (const [id, condition] of Object.entries(template.Conditions ?? {})) {
    if (!isIntrinsic(condition)) report(`Conditions.${id}`, 'a condition is an intrinsic function such as Fn::Equals');
    references.walk(condition, `Conditions.${id}`);
  }
  checkInterface(template.Metadata, parameters, report);
  return problems;
}

class ReferenceCheck {
  constructor(
    private readonly parameters: Record<string, unknown>,
    private readonly resources: NonNullable<Template['Resources']>,
    private readonly report: (path: string, message: string) => void,
  ) {}

  /** Checks an intrinsic at `path`; returns false when `value` is not an intrinsic. */
  intrinsic(value: unknown, path: string): boolean {
    if (!isIntrinsic(value)) return false;
    const [[name, argument]] = Object.entries(value as object) as [[string, unknown]];
    if (name === 'Ref') this.ref(argument, path);
    else if (name === 'Fn::GetAtt') this.getAtt(argument, path);
    else if (name === 'Fn::Sub') this.sub(argument, path);
    else this.walk(argument, `${path}.${name}`);
    return true;
  }

  walk(value: unknown, path: string): void {
    if (this.intrinsic(value, path)) return;
    if (Array.isArray(value)) value.forEach((item, index) => this.walk(item, `${path}[${index}]`));
    else if (value !== null && typeof value === 'object')
      for (const [key, item] of Object.entries(value)) this.walk(item, `${path}.${key}`);
  }

  private ref(target: unknown, path: string): void {
    if (
      typeof target !== 'string' ||
      !(pseudoParameters.has(target) || target in this.parameters || target in this.resources)
    ) {
      this.report(path, `Ref to unknown ${String(target)}`);
    }
  }

  private getAtt(argument: unknown, path: string): void {
    const [id, attribute] = Array.isArray(argument) ? (argument as unknown[]) : shown(argument).split(/\.(.*)/);
    const resource = this.resources[String(id)];
    const attributes = resource?.Type ? (specification.ResourceTypes[resource.Type]?.Attributes ?? {}) : {};
    if (!resource) this.report(path, `GetAtt of unknown resource ${String(id)}`);
    else if (!(String(attribute) in attributes))
      this.report(path, `${resource.Type} has no attribute ${String(attribute)}`);
  }

  private sub(argument: unknown, path: string): void {
    const [text, variables] = Array.isArray(argument) ? (argument as unknown[]) : [argument, {}];
    if (typeof text !== 'string') {
      this.report(path, 'Fn::Sub needs a string');
      return;
    }
    for (const match of text.matchAll(/\$\{([^!}][^}]*)\}/g)) {
      const name = match[1] as string;
      if (name in (variables as object)) continue;
      if (name.includes('.') && !pseudoParameters.has(name)) this.getAtt(name, `${path} \${${name}}`);
      else this.ref(name, `${path} \${${name}}`);
    }
  }
}

function isIntrinsic(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] === 'Ref' || (keys[0] as string).startsWith('Fn::'));
}

/** What every check within one resource needs: its type, where problems go, and the reference check. */
interface ResourceCheck {
  readonly resourceType: string;
  readonly report: (path: string, message: string) => void;
  readonly references: ReferenceCheck;
}

function checkProperties(
  check: ResourceCheck,
  typeSpec: TypeSpec,
  properties: Record<string, unknown>,
  path: string,
): void {
  const { resourceType, report } = check;
  const specs = typeSpec.Properties ?? {};
  for (const [name, spec] of Object.entries(specs)) {
    if (spec.Required && !(name in properties)) report(path, `missing required property ${name}`);
  }
  for (const [name, value] of Object.entries(properties)) {
    const spec = specs[name];
    if (!spec) {
      report(`${path}.${name}`, `unknown property of ${resourceType}`);
      continue;
    }
    checkValue(check, spec, value, `${path}.${name}`);
  }
}

function checkValue(check: ResourceCheck, spec: PropertySpec, value: unknown, path: string): void {
  const { report, references } = check;
  if (references.intrinsic(value, path)) return;
  if (spec.PrimitiveType) {
    checkPrimitive(spec.PrimitiveType, value, path, report);
    if (spec.PrimitiveType === 'Json') references.walk(value, path);
    return;
  }
  if (spec.Type === 'List' || spec.Type === 'Map') {
    const items =
      spec.Type === 'List'
        ? Array.isArray(value)
          ? value
          : undefined
        : isPlainObject(value)
          ? Object.values(value)
          : undefined;
    if (!items) {
      report(path, `expected a ${spec.Type === 'List' ? 'list' : 'map'}`);
      return;
    }
    items.forEach((item, index) => {
      const itemPath = `${path}[${index}]`;
      if (spec.PrimitiveItemType) {
        if (!references.intrinsic(item, itemPath)) checkPrimitive(spec.PrimitiveItemType, item, itemPath, report);
      } else if (spec.ItemType) {
        checkNested(check, spec.ItemType, item, itemPath);
      }
    });
    return;
  }
  if (spec.Type) checkNested(check, spec.Type, value, path);
}

function checkNested(check: ResourceCheck, typeName: string, value: unknown, path: string): void {
  const { resourceType, report, references } = check;
  if (references.intrinsic(value, path)) return;
  const nested = specification.PropertyTypes[`${resourceType}.${typeName}`] ?? specification.PropertyTypes[typeName];
  if (!nested) {
    report(path, `the specification has no property type ${typeName}`);
    return;
  }
  if (!isPlainObject(value)) {
    report(path, `expected a ${typeName} object`);
    return;
  }
  checkProperties(check, nested, value, path);
}

function checkPrimitive(
  type: string,
  value: unknown,
  path: string,
  report: (path: string, message: string) => void,
): void {
  const ok =
    type === 'String' || type === 'Timestamp'
      ? typeof value === 'string'
      : type === 'Integer' || type === 'Long'
        ? Number.isInteger(typeof value === 'string' ? Number(value) : value)
        : type === 'Double'
          ? typeof value === 'number' ||
            (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value)))
          : type === 'Boolean'
            ? typeof value === 'boolean' || value === 'true' || value === 'false'
            : type === 'Json'
              ? isPlainObject(value) || typeof value === 'string'
              : false;
  if (!ok) report(path, `expected ${type}, got ${JSON.stringify(value)}`);
}

function checkInterface(
  metadata: Record<string, unknown> | undefined,
  parameters: Record<string, unknown>,
  report: (path: string, message: string) => void,
): void {
  const face = metadata?.['AWS::CloudFormation::Interface'] as
    { ParameterGroups?: { Parameters?: string[] }[]; ParameterLabels?: Record<string, unknown> } | undefined;
  if (!face) return;
  for (const group of face.ParameterGroups ?? []) {
    for (const id of group.Parameters ?? [])
      if (!(id in parameters)) report('Metadata.ParameterGroups', `no parameter ${id}`);
  }
  for (const id of Object.keys(face.ParameterLabels ?? {}))
    if (!(id in parameters)) report('Metadata.ParameterLabels', `no parameter ${id}`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A template value in a message: strings as they are, anything else as JSON. */
function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
