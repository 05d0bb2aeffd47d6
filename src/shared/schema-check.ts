/**
 * JSON Schema validation whose errors read as instructions: each names the JSON pointer, what was found
 * and what was expected, and is located in the YAML source. The validators are compiled from the
 * schemas ahead of time (src/shared/validators/, npm run types), each imported where it is used:
 * compiling one cost a node about 0.13 s of CPU at every start.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { Problem } from './errors.ts';
import type { YamlSource } from './yaml-source.ts';

interface SchemaNode {
  readonly properties?: Record<string, { readonly const?: unknown } | undefined>;
  readonly oneOf?: readonly SchemaNode[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly 'x-expected'?: string;
}

/** Problems of `value` against a compiled schema, located in `source`. */
export function schemaProblems<T>(validate: ValidateFunction<T>, source: YamlSource, value: unknown): Problem[] {
  if (validate(value)) return [];
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const error of validate.errors ?? []) {
    const problem = toProblem(error, source);
    const key = `${problem.pointer}\u0000${problem.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      problems.push(problem);
    }
  }
  return problems;
}

function toProblem(error: ErrorObject, source: YamlSource): Problem {
  const schema = (error.parentSchema ?? {}) as SchemaNode;
  const pointer = error.instancePath;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const allowed = Object.keys(schema.properties ?? {}).join(', ');
      return source.problem(
        `${pointer}/${escapeSegment(key)}`,
        `unknown key "${key}"; expected one of: ${allowed}`,
        'key',
      );
    }
    case 'required':
      return source.problem(pointer, `missing required key "${String(params.missingProperty)}"`);
    case 'type':
      return source.problem(
        pointer,
        `expected ${schema['x-expected'] ?? String(params.type)}, got ${describe(error.data)}`,
      );
    case 'pattern':
      return source.problem(
        pointer,
        `expected ${schema['x-expected'] ?? `text matching ${String(params.pattern)}`}, got ${describe(error.data)}`,
      );
    case 'enum':
      return source.problem(
        pointer,
        `expected one of: ${(params.allowedValues as unknown[]).join(', ')}; got ${describe(error.data)}`,
      );
    case 'minimum':
    case 'maximum':
      return source.problem(
        pointer,
        `${describe(error.data)} is out of range; expected a whole number from ${schema.minimum} to ${schema.maximum}`,
      );
    case 'minLength':
      return source.problem(pointer, 'must not be empty');
    case 'maxLength':
      return source.problem(pointer, `is too long; expected at most ${String(params.limit)} characters`);
    case 'uniqueItems':
      return source.problem(pointer, `lists the same item twice (items ${String(params.j)} and ${String(params.i)})`);
    case 'discriminator': {
      const tag = String(params.tag);
      const present = typeof error.data === 'object' && error.data !== null && tag in error.data;
      return present
        ? source.problem(`${pointer}/${tag}`, discriminatorMessage(params, error.data, schema))
        : source.problem(
            pointer,
            `missing required key "${tag}"; ${discriminatorMessage(params, error.data, schema).replace(/^.*?; /, '')}`,
          );
    }
    default:
      return source.problem(pointer, error.message ?? `fails the ${error.keyword} rule`);
  }
}

function discriminatorMessage(params: Record<string, unknown>, data: unknown, schema: SchemaNode): string {
  const tag = String(params.tag);
  const value = (data as Record<string, unknown> | null)?.[tag];
  const known = (schema.oneOf ?? []).map((branch) => String(branch.properties?.[tag]?.const));
  return `${describe(value)} is not a known ${tag}; expected one of: ${known.join(', ')}`;
}

function escapeSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A short rendering of a value for messages: strings quoted, objects by kind. */
export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (value === undefined) return 'nothing';
  return `${value as number | boolean | bigint}`;
}
