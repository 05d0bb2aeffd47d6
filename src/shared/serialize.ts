/** Deterministic serialisation: keys sorted at every level so that output changes only with behaviour. */
import { stringify as stringifyYaml } from 'yaml';

export function sortKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortKeys) as T;
  if (value !== null && typeof value === 'object') {
    const sorted = Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]);
    return Object.fromEntries(sorted) as T;
  }
  return value;
}

export function toStableJson(value: unknown): string {
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}

/**
 * YAML that YAML 1.1 readers (PyYAML, older Go parsers) read the same way as YAML 1.2 ones: strings
 * such as "yes", "on" or "2010-09-09" are quoted.
 */
export const portableYamlOptions = { version: '1.1', lineWidth: 0 } as const;

export function toStableYaml(value: unknown): string {
  return stringifyYaml(sortKeys(value), portableYamlOptions);
}
