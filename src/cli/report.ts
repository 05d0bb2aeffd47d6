/** How the CLI reports a failure: one line per problem, the fix, and an exit code from the error. */
import { PortalError, ValidationError, formatProblem } from '../shared/errors.ts';

export interface FailureReport {
  readonly lines: readonly string[];
  readonly exitCode: number;
}

export function reportFailure(error: unknown, developer: boolean): FailureReport {
  const trace = developer && error instanceof Error && error.stack ? [error.stack] : [];
  if (error instanceof ValidationError) {
    const count = error.problems.length === 1 ? '1 problem' : `${error.problems.length} problems`;
    return {
      lines: [...error.problems.map(formatProblem), `portal: ${count}; ${error.hint}`, ...trace],
      exitCode: error.exitCode,
    };
  }
  if (error instanceof PortalError) {
    const hint = error.hint ? `; ${error.hint}` : '';
    return { lines: [`portal: ${error.message}${hint}`, ...trace], exitCode: error.exitCode };
  }
  const message = error instanceof Error ? error.message : String(error);
  const advice = developer ? '' : '; run again with NODE_DEVELOPER=true for the details';
  return { lines: [`portal: internal error: ${message}${advice}`, ...trace], exitCode: 1 };
}
