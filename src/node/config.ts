/**
 * The node's configuration as `portal node create` receives it: JSON or YAML, inline or in a file, from
 * --configuration or --node-config (which may carry the ticket). Text that opens as a JSON object is
 * read as strict JSON, anything else as YAML; either is checked against the node configuration schema,
 * with every problem located by line and JSON pointer.
 */
import { readFile } from 'node:fs/promises';
import { InputError, ValidationError, type Problem } from '../shared/errors.ts';
import { schemaProblems, validateNodeConfigShape } from '../shared/schema-check.ts';
import type { NodeConfig } from '../shared/types/node-config.ts';
import { looksLikeJson, parseJsonSource } from '../shared/json-source.ts';
import { parseYamlSource } from '../shared/yaml-source.ts';
import { parseHostPort } from '../shared/address.ts';

/** Inline text if it looks like a document, else a file path. */
export async function readConfigurationArgument(value: string, flag: string): Promise<{ name: string; text: string }> {
  const trimmed = value.trim();
  if (trimmed.startsWith('{') || trimmed.includes('\n') || /^[A-Za-z-]+:\s/.test(trimmed))
    return { name: flag, text: value };
  try {
    return { name: value, text: await readFile(value, 'utf8') };
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

export function parseNodeConfig(name: string, text: string): NodeConfig {
  // JSON is YAML, but a YAML parser words a JSON mistake as a YAML one, or accepts it (a trailing comma).
  const source = looksLikeJson(text) ? parseJsonSource(name, text) : parseYamlSource(name, text);
  if (source.syntaxProblems.length > 0) throw invalid(source.syntaxProblems);
  const problems = schemaProblems(validateNodeConfigShape, source, source.value);
  if (problems.length > 0) throw invalid(problems);
  const config = source.value as NodeConfig;
  const rules: { pointer: string; message: string }[] = [];
  const outlet = config['tcp-outlet'];
  const inlet = config['tcp-inlet'];
  if (!outlet && !inlet)
    rules.push({ pointer: '', message: 'the configuration has neither tcp-outlet nor tcp-inlet; give at least one' });
  if (outlet && !config.relay)
    rules.push({ pointer: '/tcp-outlet', message: 'an outlet needs relay: <name> (the relay its ticket grants)' });
  if (outlet) {
    const target = parseHostPort(outlet.to);
    if (!target.ok)
      rules.push({
        pointer: '/tcp-outlet/to',
        message:
          `expected host:port, but ${target.reason}` +
          `${outlet.to.includes('$') ? ' (an endpoint placeholder the stack did not replace?)' : ''}`,
      });
  }
  if (inlet) {
    const from = parseHostPort(inlet.from, true);
    if (!from.ok) rules.push({ pointer: '/tcp-inlet/from', message: `expected address:port, but ${from.reason}` });
  }
  if (rules.length > 0) throw invalid(rules.map((rule) => source.problem(rule.pointer, rule.message)));
  return config;
}
