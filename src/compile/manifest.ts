/**
 * Manifest text in, a validated manifest out, or every problem at once: YAML syntax, then the schema,
 * then the cross-field rules (only on a manifest whose shape is right, so each message is meaningful).
 */
import { ValidationError, type Problem } from '../shared/errors.ts';
import type { UseCaseManifest } from '../shared/types/manifest.ts';
import { checkRules } from './rules.ts';
import { schemaProblems, validateManifestShape } from '../shared/schema-check.ts';
import { parseYamlSource } from '../shared/yaml-source.ts';

export function manifestProblems(file: string, text: string): { manifest?: UseCaseManifest; problems: Problem[] } {
  const source = parseYamlSource(file, text);
  if (source.syntaxProblems.length > 0) return { problems: [...source.syntaxProblems] };
  const shape = schemaProblems(validateManifestShape, source, source.value);
  if (shape.length > 0) return { problems: sortByPosition(shape) };
  const manifest = source.value as UseCaseManifest;
  const problems = checkRules(manifest).map((v) => source.problem(v.pointer, v.message, v.at));
  return problems.length > 0 ? { problems: sortByPosition(problems) } : { manifest, problems: [] };
}

/** The manifest, or a ValidationError listing every problem in it. */
export function parseManifest(file: string, text: string): UseCaseManifest {
  const { manifest, problems } = manifestProblems(file, text);
  if (!manifest) throw new ValidationError(problems);
  return manifest;
}

function sortByPosition(problems: Problem[]): Problem[] {
  return [...problems].sort((a, b) => a.line - b.line || a.column - b.column);
}
