/**
 * GET /healthz on a status server: 200 and one line of JSON while the process serves, 503 and the
 * reason when it does not (a controller whose store does not answer, a relay its controller has not
 * taken, a process that is stopping). A probe reads the status code; a person reads the reason.
 *
 * A check may ask the store. Probes that arrive while one is made share it, so a local process asking
 * in a loop costs one check at a time, however many connections it opens.
 */
import type { StatusRoute } from './status-server.ts';

/** Undefined while the process serves; why it does not, otherwise. */
export type HealthCheck = () => Promise<string | undefined> | string | undefined;

export type HealthOf = 'controller' | 'relay';

export function healthRoute(process: HealthOf, check: HealthCheck): StatusRoute {
  let checking: Promise<string | undefined> | undefined;
  return async () => {
    checking ??= Promise.resolve()
      .then(check)
      .finally(() => {
        checking = undefined;
      });
    const problem = await checking;
    const body =
      problem === undefined ? { status: 'serving', process } : { status: 'unavailable', process, reason: problem };
    return {
      status: problem === undefined ? 200 : 503,
      contentType: 'application/json',
      body: `${JSON.stringify(body)}\n`,
    };
  };
}
