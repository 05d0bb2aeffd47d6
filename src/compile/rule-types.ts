/**
 * The shape every cross-field rule shares: rules.ts runs them and the files under rules/ (and the
 * stack limits) produce them, so the types live apart from both and neither imports the other's module.
 */
import type { UseCaseManifest } from '../shared/types/manifest.ts';
import type { Soundness } from './soundness.ts';

export interface RuleViolation {
  readonly pointer: string;
  readonly message: string;
  /** Point at the key rather than its value (for keys that must not be there). */
  readonly at?: 'key' | 'value';
}

export type Rule = (manifest: UseCaseManifest, sound: Soundness) => RuleViolation[];
