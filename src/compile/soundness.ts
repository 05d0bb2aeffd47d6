/**
 * Which parts of a manifest the schema found well-formed, so that the cross-field rules run on those
 * parts in the same pass and every problem is reported at once. A schema error taints the value it is
 * about (for a missing or unknown key: that key); a rule reads a part only when nothing in it, and
 * nothing above it, is tainted. Pure.
 */
import type { ErrorObject } from 'ajv';
import { encodePointer, decodePointer } from '../shared/yaml-source.ts';

export interface Soundness {
  /** Whether each pointer's value, everything in it and everything above it are well-formed. */
  whole(...pointers: string[]): boolean;
  /** Whether each pointer's value and everything above it are well-formed (its children may not be). */
  node(...pointers: string[]): boolean;
}

/** A manifest the schema accepted: every part is sound. */
export const allSound: Soundness = { whole: () => true, node: () => true };

export function soundnessOf(errors: readonly ErrorObject[]): Soundness {
  const taints = errors.map(taintOf);
  const within = (inner: string, outer: string) => inner === outer || inner.startsWith(`${outer}/`);
  return {
    whole: (...pointers) => pointers.every((p) => !taints.some((t) => within(p, t) || within(t, p))),
    node: (...pointers) => pointers.every((p) => !taints.some((t) => within(p, t))),
  };
}

function taintOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const segments = decodePointer(error.instancePath);
  if (error.keyword === 'required') return encodePointer([...segments, String(params.missingProperty)]);
  if (error.keyword === 'additionalProperties') {
    return encodePointer([...segments, String(params.additionalProperty)]);
  }
  return error.instancePath;
}
