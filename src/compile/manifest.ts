/**
 * Manifest text in, a validated manifest out, or every problem at once: YAML syntax first (nothing
 * else can be read without it), then the schema and the cross-field rules in one pass, the rules on
 * whatever parts the schema found well-formed (soundness.ts), each problem located in the file.
 */
import { ValidationError, type Problem } from '../shared/errors.ts';
import type { UseCaseManifest } from '../shared/types/manifest.ts';
import { checkRules } from './rules.ts';
import { soundnessOf } from './soundness.ts';
import { schemaProblems } from '../shared/schema-check.ts';
import validateManifest from '../shared/validators/manifest.cjs';
import { parseYamlSource } from '../shared/yaml-source.ts';

export function manifestProblems(file: string, text: string): { manifest?: UseCaseManifest; problems: Problem[] } {
  const source = parseYamlSource(file, text);
  if (source.syntaxProblems.length > 0) return { problems: [...source.syntaxProblems] };
  const shape = schemaProblems(validateManifest, source, source.value);
  const sound = soundnessOf(shape.length > 0 ? (validateManifest.errors ?? []) : []);
  const manifest = source.value as UseCaseManifest;
  const rules = checkRules(manifest, sound).map((v) => source.problem(v.pointer, v.message, v.at));
  const problems = unique([...shape, ...rules]);
  return problems.length > 0 ? { problems: sortByPosition(problems) } : { manifest, problems: [] };
}

/** The manifest, or a ValidationError listing every problem in it. */
export function parseManifest(file: string, text: string): UseCaseManifest {
  const { manifest, problems } = manifestProblems(file, text);
  if (!manifest) throw new ValidationError(problems);
  return manifest;
}

function unique(problems: readonly Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.pointer}\u0000${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function sortByPosition(problems: Problem[]): Problem[] {
  return [...problems].sort((a, b) => a.line - b.line || a.column - b.column);
}
