/**
 * Rules that span several fields of a manifest: the ones a JSON Schema cannot say. Pure: a manifest in,
 * violations (JSON pointer and message) out. Each rule reads only the parts the schema found well-formed
 * (soundness.ts), so that they run in the same pass as the schema on a manifest with problems elsewhere.
 */
import type { UseCaseManifest } from '../shared/types/manifest.ts';
import { resolveUseCase } from './model.ts';
import { isMapping } from './portals.ts';
import type { Rule, RuleViolation } from './rule-types.ts';
import { controlPlaneRules } from './rules/control-plane.ts';
import { nameRules } from './rules/names.ts';
import { portRules } from './rules/ports.ts';
import { shapeRules } from './rules/shape.ts';
import { targetRules } from './rules/target.ts';
import { verificationRules } from './rules/verification.ts';
import { allSound, type Soundness } from './soundness.ts';
import { stackLimitViolations } from './stack/limits.ts';

const rules: readonly Rule[] = [
  ...shapeRules,
  ...nameRules,
  ...targetRules,
  ...portRules,
  ...verificationRules,
  ...controlPlaneRules,
];

/**
 * Every violation of the cross-field rules; for a manifest that is sound and breaks none, CloudFormation's
 * limits on the stacks it compiles to (the stacks are built only from a manifest whose fields agree).
 */
export function checkRules(manifest: UseCaseManifest, sound: Soundness = allSound): RuleViolation[] {
  if (!sound.node('') || !isMapping(manifest)) return [];
  const found = rules.flatMap((rule) => rule(manifest, sound));
  if (found.length > 0 || !sound.whole('')) return found;
  return stackLimitViolations(resolveUseCase(manifest));
}
