/**
 * Endpoint placeholders in an outlet's `to`: `$NAME` (upper-case letters and underscores) stands for the
 * node's environment variable NAME. The cloud stacks' boot script replaces them in the file before the
 * node starts; compose, Kubernetes and systemd deployments pass the value in the environment, and the
 * node replaces them when it reads its configuration (at start and on reload). Pure: the environment is
 * given.
 */

/** `$NAME` as the schema allows it in `to`. */
const placeholder = /\$([A-Z_]+)/g;

export type Substitution =
  | { readonly ok: true; readonly value: string; readonly used: readonly { name: string; value: string }[] }
  | { readonly ok: false; readonly missing: readonly string[] };

/**
 * `text` with each `$NAME` replaced by the environment's NAME; the names that are not set (or empty)
 * when any is. The value is taken as it is: the caller checks what it makes.
 */
export function substitutePlaceholders(
  text: string,
  environment: Readonly<Record<string, string | undefined>>,
): Substitution {
  const used: { name: string; value: string }[] = [];
  const missing: string[] = [];
  const value = text.replace(placeholder, (whole, name: string) => {
    const found = Object.hasOwn(environment, name) ? environment[name] : undefined;
    if (found === undefined || found === '') {
      if (!missing.includes(name)) missing.push(name);
      return whole;
    }
    used.push({ name, value: found });
    return found;
  });
  return missing.length > 0 ? { ok: false, missing } : { ok: true, value, used };
}
