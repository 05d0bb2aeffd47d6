/** The small part of jq that `--jq` takes: a path such as .id, .project.id or .inlets[0].from. */
import { InputError } from '../shared/errors.ts';

export function selectPath(value: unknown, path: string): unknown {
  if (!/^\.(([A-Za-z_][A-Za-z0-9_]*)|\[\d+\])?((\.[A-Za-z_][A-Za-z0-9_]*)|\[\d+\])*$/.test(path)) {
    throw new InputError('BAD_JQ_PATH', `--jq takes a path such as .id or .inlets[0].from, not "${path}"`, {
      hint: 'use .key, .key.key or .key[0]',
    });
  }
  let current: unknown = value;
  for (const [, key, index] of path.matchAll(/\.?([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]/g)) {
    if (current === null || typeof current !== 'object') return null;
    current = key !== undefined ? (current as Record<string, unknown>)[key] : (current as unknown[])[Number(index)];
    if (current === undefined) return null;
  }
  return current;
}

/** As jq -r prints: strings bare, everything else as JSON. */
export function printable(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}
