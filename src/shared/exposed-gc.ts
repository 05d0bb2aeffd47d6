/**
 * V8's own collection, reached without starting Node.js with --expose-gc: the flag is set at run time
 * and the function read from a fresh context. Used where a process knows better than V8's heuristics
 * when garbage is worth collecting (memory-reducer.ts, read-buffer-sweep.ts).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's forced collection, with the options the running V8 takes (see optionsWork). */
export type Collect = (options?: {
  readonly type: 'major' | 'minor';
  readonly execution: 'sync';
  readonly flavor?: 'last-resort';
}) => void;

/**
 * The first V8 whose collection takes options that work: 11 (Node.js 20) collects nothing at once when
 * given any, so it gets none.
 */
const firstV8WithOptions = 12;

/** Whether the running V8's collection honours its options. */
export const optionsWork = (v8Version = process.versions.v8): boolean =>
  Number.parseInt(v8Version, 10) >= firstV8WithOptions;

let looked: { readonly collect: Collect | undefined } | undefined;

/** The collection function, or undefined where the runtime offers none; looked up once (a new context each time). */
export function exposedGc(): Collect | undefined {
  looked ??= { collect: lookUp() };
  return looked.collect;
}

function lookUp(): Collect | undefined {
  try {
    setFlagsFromString('--expose-gc');
    const found: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
    return typeof found === 'function' ? (found as Collect) : undefined;
  } catch {
    return undefined;
  }
}
