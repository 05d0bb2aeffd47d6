/** What scripts/test-run.mjs exports, typed for its tests. */
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

export interface CheckResult {
  readonly name: string;
  readonly passed: boolean;
  readonly ms: number;
  /** Where its output went. */
  readonly log: string;
}

/** `npm run NAME` in `cwd`, its output to a log in `workspace`. */
export function runCheck(name: string, workspace: string, cwd?: string): Promise<CheckResult>;

/**
 * docker-compose imported once (test/support/compose-zygote.py), and the `docker-compose` in
 * `workspace`/bin that asks it; undefined without docker-compose on `path` (default: PATH).
 */
export function startComposeZygote(
  workspace: string,
  path?: string,
): { bin: string; stop(): Promise<unknown> } | undefined;
