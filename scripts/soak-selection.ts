/**
 * Which attacks a soak run performs: all of them by default, or those SOAK_ONLY names (keys separated
 * by commas), so that one attack can be run alone against a project at rest. Pure.
 */

/** The attacks by key, in the order they run. */
export const attackKeys = [
  'ping-flood',
  'connect-flood',
  'splice-hoarding',
  'slowloris',
  'rogue-registrations',
  'stream-flood',
  'rogue-relay',
  'unreachable-relays',
  'relay-killed',
  'withheld-verdict',
  'expired-certificate',
  'audit-flood',
  'status-hold',
] as const;
export type AttackKey = (typeof attackKeys)[number];

/** Attacks that run on what another one started: the bulk inlet starts in rogue-relay. */
const needs: Partial<Record<AttackKey, AttackKey>> = {
  'unreachable-relays': 'rogue-relay',
  'relay-killed': 'rogue-relay',
};

/** The attacks `only` names (all when unset or blank), or the one line that says what is wrong with it. */
export function selectAttacks(only: string | undefined): ReadonlySet<AttackKey> | string {
  if (only === undefined || only.trim() === '') return new Set(attackKeys);
  const named = only
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean);
  const unknown = named.filter((key) => !(attackKeys as readonly string[]).includes(key));
  if (unknown.length > 0)
    return (
      `SOAK_ONLY: no attack named ${unknown.join(', ')}; ` +
      `give keys separated by commas from ${attackKeys.join(', ')}`
    );
  const selected = new Set(named as AttackKey[]);
  for (const key of selected) {
    const needed = needs[key];
    if (needed && !selected.has(needed))
      return `SOAK_ONLY: ${key} runs on what ${needed} starts (the bulk inlet); add ${needed}`;
  }
  return selected;
}
