/**
 * The server side of a control or relay connection: the client's first line names the protocol
 * version (a client of another version is told both and closed), then every line is a request read
 * through its operation's field table and answered in order of completion by id. Errors become
 * answers with a stable code and a hint; anything unexpected is logged and answered as INTERNAL.
 */
import type { TLSSocket } from 'node:tls';
import type { ErrorCode } from '../shared/error-codes.ts';
import { PortalError } from '../shared/errors.ts';
import { serveJsonLines, type JsonLinesService } from './json-lines.ts';
import {
  checkHello,
  helloOf,
  parseRequest,
  versionHint,
  type AnswerOf,
  type Fields,
  type OperationHandlers,
  type ParsedRequest,
  type ServiceName,
} from './protocol.ts';

/** An error answer, as the client reads it back (control-channel.ts): its code is one of the list. */
interface Refusal {
  readonly id: number | null;
  readonly ok: false;
  readonly code: ErrorCode;
  readonly message: string;
  readonly hint: string | undefined;
  /** The exit code of the error's class: 2 for bad input, 1 for a failure at run time. */
  readonly exit: 1 | 2;
}

/** A request as it was answered, for the metrics: never the request's body. */
export interface AnsweredRequest {
  /** The operation; "unknown" for one the contract does not list (a peer's text never becomes a label). */
  readonly op: string;
  /** The code of the error it was refused with; undefined when it was answered. */
  readonly code: ErrorCode | undefined;
  /** From the request read to its answer made. */
  readonly seconds: number;
  /** The answer, when it was answered. */
  readonly answer: object | undefined;
}

export interface ServeOptions<Ops> {
  readonly service: ServiceName;
  readonly fields: Fields<Ops>;
  /** Requests being answered at once. */
  readonly maxInFlight: number;
  /** Unread answers and events a peer may leave queued before its connection is closed. */
  readonly maxQueuedBytes: number;
  /** Asked before each request is read: false closes the connection (limits for anonymous peers). */
  readonly admit?: () => boolean;
  /** The answer to each operation, checked against the contract by the compiler. */
  readonly handlers: OperationHandlers<Ops>;
  readonly log?: (line: string) => void;
  /** Told of every request once it is answered. */
  readonly observe?: (answered: AnsweredRequest) => void;
}

/** Events pushed before the peer's hello was answered, held until it is: past this, the connection closes. */
const heldEventsBound = 64;

export function serveService<Ops>(socket: TLSSocket, options: ServeOptions<Ops>): JsonLinesService {
  let greeted = false;
  // A peer reads the answer to its hello first: what is pushed before waits for it.
  let held: unknown[] | undefined = [];
  const service = serveJsonLines(
    socket,
    async (message) => {
      if (message === null || typeof message !== 'object' || Array.isArray(message)) {
        socket.destroy();
        return undefined;
      }
      if (!greeted) {
        const refused = checkHello(options.service, message);
        if (refused) {
          const old = message as { id?: unknown };
          // A client of the unversioned protocol reads only answers to its requests: it gets one.
          const answer =
            typeof old.id === 'number'
              ? ({
                  id: old.id,
                  ok: false,
                  code: 'PROTOCOL_VERSION',
                  message: refused,
                  hint: versionHint,
                  exit: 1,
                } satisfies Refusal)
              : { ...helloOf(options.service), refused };
          socket.end(`${JSON.stringify(answer)}\n`);
          return undefined;
        }
        greeted = true;
        // After the hello's answer, which is sent when this returns (a microtask away).
        setImmediate(() => {
          const events = held ?? [];
          held = undefined;
          for (const event of events) service.send(event);
        });
        return helloOf(options.service);
      }
      if (options.admit && !options.admit()) {
        socket.destroy();
        return undefined;
      }
      if (!options.observe) return answer(options, message as Record<string, unknown>);
      const started = performance.now();
      const made = await answer(options, message as Record<string, unknown>);
      options.observe(observed(options.fields, message as Record<string, unknown>, made, started));
      return made;
    },
    () => socket.destroy(),
    { maxInFlight: options.maxInFlight, maxQueuedBytes: options.maxQueuedBytes },
  );
  return {
    send(event) {
      if (held === undefined) service.send(event);
      else if (held.push(event) > heldEventsBound) socket.destroy();
    },
  };
}

async function answer<Ops>(options: ServeOptions<Ops>, message: Record<string, unknown>): Promise<object> {
  const id = typeof message.id === 'number' ? message.id : null;
  const request = parseRequest(options.fields, message);
  const op = typeof message.op === 'string' ? message.op.slice(0, 40) : '?';
  if (!request) {
    const who = options.service === 'control' ? 'controller' : 'relay';
    return {
      id,
      ok: false,
      code: 'UNKNOWN_OPERATION',
      message: `the ${who} does not know the operation "${op}"`,
      hint: versionHint,
      exit: 2,
    } satisfies Refusal;
  }
  try {
    return { id, ok: true, ...(await dispatch(options.handlers, request)) };
  } catch (error) {
    if (error instanceof PortalError)
      return {
        id,
        ok: false,
        code: error.code,
        message: error.message,
        hint: error.hint,
        exit: error.exitCode,
      } satisfies Refusal;
    options.log?.(`${options.service}: internal error on ${op}: ${(error as Error).message}`);
    return {
      id,
      ok: false,
      code: 'INTERNAL',
      message: `the ${options.service === 'control' ? 'controller' : 'relay'} failed to answer`,
      hint: 'see its log',
      exit: 1,
    } satisfies Refusal;
  }
}

/** What the metrics see of an answered request. */
function observed<Ops>(
  fields: Fields<Ops>,
  message: Record<string, unknown>,
  made: object,
  started: number,
): AnsweredRequest {
  const known = typeof message.op === 'string' && Object.hasOwn(fields, message.op);
  const refused = (made as { ok?: boolean }).ok === false;
  return {
    op: known ? (message.op as string) : 'unknown',
    code: refused ? (made as Refusal).code : undefined,
    seconds: (performance.now() - started) / 1000,
    answer: refused ? undefined : made,
  };
}

/** The request's own handler, whose answer is of the request's operation. */
function dispatch<Ops, K extends keyof Ops>(
  handlers: OperationHandlers<Ops>,
  request: ParsedRequest<Ops, K>,
): AnswerOf<Ops, K> | Promise<AnswerOf<Ops, K>> {
  return handlers[request.op](request.body);
}
