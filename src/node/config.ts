/**
 * The node's configuration as `portal node create` receives it: JSON or YAML, inline or in a file, from
 * --configuration or --node-config (which may carry the ticket). Text that opens as a JSON object is
 * read as strict JSON, anything else as YAML; either is checked against the node configuration schema,
 * with every problem located by line and JSON pointer.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InputError, ValidationError, type Problem } from '../shared/errors.ts';
import { schemaProblems } from '../shared/schema-check.ts';
import validateNodeConfig from '../shared/validators/node-config.cjs';
import type { NodeConfig } from '../shared/types/node-config.ts';
import { looksLikeJson, parseJsonSource } from '../shared/json-source.ts';
import { parseYamlSource } from '../shared/yaml-source.ts';
import { checkNodeConfig, type Environment, type Rule } from './config-rules.ts';

/** A configuration as given: its text, the name problems are located in, and the file it came from, if any. */
export interface ConfigurationText {
  readonly name: string;
  readonly text: string;
  /** The file it was read from (absolute), which a reload reads again; none for an inline document. */
  readonly file?: string;
}

/** Inline text if it looks like a document, else a file path. */
export async function readConfigurationArgument(value: string, flag: string): Promise<ConfigurationText> {
  const trimmed = value.trim();
  if (trimmed.startsWith('{') || trimmed.includes('\n') || /^[A-Za-z-]+:\s/.test(trimmed))
    return { name: flag, text: value };
  try {
    return { name: value, text: await readFile(value, 'utf8'), file: resolve(value) };
  } catch (error) {
    throw new InputError(
      'CONFIGURATION_UNREADABLE',
      `cannot read the configuration file ${value}: ` +
        `${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      {
        hint: `give ${flag} a JSON or YAML document, or the path of a file holding one`,
      },
    );
  }
}

const invalid = (problems: readonly Problem[]) =>
  new ValidationError(problems, 'fix the configuration and start the node again');

export interface ParseOptions {
  /** Where `$NAME` placeholders in an outlet's `to` are read from. @default {} (none is set) */
  readonly environment?: Environment;
  /** Rules of the caller's beside the configuration's own (a reload's: what may not change live). */
  readonly rules?: (config: NodeConfig) => readonly Rule[];
  /** The words the refusal ends with. @default "fix the configuration and start the node again" */
  readonly hint?: string;
}

/**
 * The configuration in `text`, checked against the schema and the rules (config-rules.ts), with its
 * placeholders replaced from the environment; every problem at once, located, when there is any.
 */
export function parseNodeConfig(name: string, text: string, options: ParseOptions = {}): NodeConfig {
  const refuse = (problems: readonly Problem[]) =>
    options.hint ? new ValidationError(problems, options.hint) : invalid(problems);
  // JSON is YAML, but a YAML parser words a JSON mistake as a YAML one, or accepts it (a trailing comma).
  const source = looksLikeJson(text) ? parseJsonSource(name, text) : parseYamlSource(name, text);
  if (source.syntaxProblems.length > 0) throw refuse(source.syntaxProblems);
  const problems = schemaProblems(validateNodeConfig, source, source.value);
  if (problems.length > 0) throw refuse(problems);
  const { config, rules } = checkNodeConfig(source.value as NodeConfig, options.environment ?? {});
  const all = [...rules, ...(options.rules?.(config) ?? [])];
  if (all.length > 0) throw refuse(all.map((rule) => source.problem(rule.pointer, rule.message)));
  return config;
}
