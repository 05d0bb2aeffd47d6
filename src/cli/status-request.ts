/**
 * Reads the local node's GET /show for `node show` and `node reload`. The wait is bounded by a timer
 * that keeps the process alive until it fires: an AbortSignal.timeout does not, so a status server that
 * accepted the connection and never answered let the process end with its await unsettled (exit 13,
 * nothing printed) instead of saying that the node did not answer.
 */
import { get } from 'node:http';
import type { NodeShow } from '../node/show.ts';

/** Why the status server gave no /show: it refused the connection, closed it, answered badly or not in time. */
export class StatusUnanswered extends Error {}

/** The largest /show read: a node with many portals writes tens of KiB; more is not a status answer. */
const largestShowBytes = 4 * 1024 * 1024;

export function readNodeShow(port: number, timeoutMs: number): Promise<NodeShow> {
  return new Promise<NodeShow>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      request.destroy();
      reject(new StatusUnanswered(why));
    };
    const timer = setTimeout(() => fail(`no answer within ${timeoutMs} ms`), timeoutMs);
    const request = get({ host: '127.0.0.1', port, path: '/show', agent: false }, (response) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > largestShowBytes) fail('its answer is too large');
        else chunks.push(chunk);
      });
      response.on('error', (error) => fail(error.message));
      response.on('end', () => {
        clearTimeout(timer);
        if (response.statusCode !== 200) return reject(new StatusUnanswered(`it answered ${response.statusCode}`));
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as NodeShow);
        } catch {
          reject(new StatusUnanswered('its answer is not JSON'));
        }
      });
    });
    request.on('error', (error) => fail(error.message));
  });
}
