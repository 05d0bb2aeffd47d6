/** The pure part of scripts/test-run.mjs, typed for its test. */
export interface Lane {
  files: string[];
  load: number;
}

export function dealLanes(
  files: readonly string[],
  durations: Readonly<Record<string, number>>,
  jobs: number,
  serial: readonly string[],
): Lane[];
