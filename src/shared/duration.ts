/** Durations as people write them: 10h, 30m, 45s, 7d, or combinations such as 1h30m. */
const units: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(text: string): number | undefined {
  if (!/^([0-9]+(ms|s|m|h|d))+$/.test(text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/([0-9]+)(ms|s|m|h|d)/g)) total += Number(amount) * (units[unit as string] as number);
  return total > 0 ? total : undefined;
}
