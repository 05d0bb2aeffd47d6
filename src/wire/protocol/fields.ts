/**
 * Field tables: how the contract in ../protocol.ts reads a message a peer sent. Each field is listed
 * with its kind, which the compiler derives from the field's type, so a table cannot drift from the
 * type it reads; fields not listed are ignored.
 *
 * A table is read in one of two ways. Leniently (requests): every field gets a value of its kind, a
 * default when the peer sent none or another kind ('' for text, NaN for a number, [] for a list, a
 * record read from nothing). Strictly (pushed events): a field of another kind makes the whole message
 * unreadable. Either way a list keeps only the items it can read, and a list of texts is bounded.
 */
import type {
  ControllerEvent,
  ControllerOperations,
  RelayEntry,
  RelayEvent,
  RelayOperations,
  RequestOf,
} from './operations.ts';

/** How one field is read, by its type. */
type KindOf<T> = [T] extends [string]
  ? 'text'
  : [T] extends [number]
    ? 'number'
    : [T] extends [boolean]
      ? 'flag'
      : [T] extends [readonly string[]]
        ? 'texts'
        : [T] extends [readonly (infer Item)[]]
          ? { readonly records: FieldTable<Item> }
          : { readonly record: FieldTable<T> };

/** An optional text is absent when empty; other optional fields read as their kind. */
type OptionalKindOf<T> = [Exclude<T, undefined>] extends [string] ? 'text?' : KindOf<Exclude<T, undefined>>;

/** The kind of every field of T. */
export type FieldTable<T> = {
  readonly [F in keyof T]-?: Record<never, never> extends Pick<T, F> ? OptionalKindOf<T[F]> : KindOf<T[F]>;
};

type FieldKind =
  'text' | 'text?' | 'number' | 'flag' | 'texts' | { readonly record: AnyTable } | { readonly records: AnyTable };
type AnyTable = { readonly [field: string]: FieldKind };

export type Reading = 'lenient' | 'strict';

/** A list of texts holds at most this many, each at most this long: anything beyond is dropped. */
const maxTexts = { items: 16, length: 300 };

/** Marks a field a strict reading cannot read. */
const unreadable = Symbol('unreadable');

/**
 * `value` read through `table`: the fields it lists, each of its kind. Undefined when `value` is no
 * JSON object (a lenient reading reads it as an empty one) or, read strictly, when a field is unreadable.
 */
export function readRecord<T>(table: FieldTable<T>, value: unknown, reading: Reading): T | undefined {
  return readTable(table, value, reading) as T | undefined;
}

export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function readTable(table: AnyTable, value: unknown, reading: Reading): Record<string, unknown> | undefined {
  if (!isJsonObject(value) && reading === 'strict') return undefined;
  const source = isJsonObject(value) ? value : {};
  const record: Record<string, unknown> = {};
  for (const [name, kind] of Object.entries(table)) {
    const read = readField(kind, Object.hasOwn(source, name) ? source[name] : undefined, reading);
    if (read === unreadable) return undefined;
    if (read !== undefined) record[name] = read;
  }
  return record;
}

/** A field's value of its kind; undefined for an optional text left out; `unreadable` (strict only). */
function readField(kind: FieldKind, value: unknown, reading: Reading): unknown {
  const orDefault = (fallback: unknown) => (reading === 'lenient' ? fallback : unreadable);
  if (typeof kind === 'object') {
    if ('record' in kind) return readTable(kind.record, value, reading) ?? unreadable;
    if (!Array.isArray(value)) return orDefault([]);
    return value.flatMap((item) => readTable(kind.records, item, 'strict') ?? []);
  }
  switch (kind) {
    case 'text':
      return typeof value === 'string' ? value : orDefault('');
    case 'text?':
      return typeof value === 'string' && value !== '' ? value : undefined;
    case 'number':
      return typeof value === 'number' ? value : orDefault(Number.NaN);
    case 'flag':
      return value === true;
    case 'texts':
      if (!Array.isArray(value)) return orDefault([]);
      return value
        .slice(0, maxTexts.items)
        .filter((item): item is string => typeof item === 'string' && item.length <= maxTexts.length);
  }
}

// ---------------------------------------------------------------------------------------------------
// The tables of the contract: each operation's request and each pushed event.

/** The fields of each operation's request. */
export type Fields<Ops> = { readonly [K in keyof Ops]: FieldTable<RequestOf<Ops, K>> };

export const controllerFields: Fields<ControllerOperations> = {
  ping: {},
  'admin-enroll': { code: 'text', request: 'text', project: 'text?' },
  enroll: { ticket: 'text', secret: 'text', request: 'text' },
  renew: { request: 'text' },
  'reissue-challenge': {},
  reissue: { certificate: 'text', request: 'text' },
  ticket: {
    expiresInMs: 'number',
    usageCount: 'number',
    attribute: 'text',
    relay: 'text?',
    tls: 'flag',
    relayNode: 'flag',
    admin: 'flag',
  },
  project: {},
  ca: {},
  relays: {},
  'relay-announce': { address: 'text', fingerprint: 'text' },
  advertise: { via: 'text', allow: 'text', addresses: 'texts', secret: 'text', warm: 'number' },
  unadvertise: { via: 'text' },
  inlets: {},
  members: {},
  revoke: { member: 'text', reason: 'text' },
  grant: { member: 'text', relay: 'text' },
  revocations: {},
  'revocations-return': { revoked: { records: { nodeId: 'text', until: 'number', proof: 'text?' } } },
  tickets: {},
  'ticket-cancel': { ticket: 'text' },
  'console-link': {},
  'member-report': { liveSessions: 'number' },
  'portal-report': {
    portals: {
      records: {
        part: 'text',
        name: 'text',
        relay: 'text',
        status: 'text',
        since: 'number',
        open: 'number',
        total: 'number',
        up: 'number',
        down: 'number',
        peers: { records: { node: 'text', path: 'text', open: 'number' } },
      },
    },
  },
  'audit-report': {
    records: { records: { id: 'text', event: 'text', time: 'number', members: 'texts', details: 'text' } },
  },
  audit: { exchange: 'number', afterSeq: 'number', limit: 'number', since: 'number', member: 'text?', event: 'text?' },
};

export const relayFields: Fields<RelayOperations> = {
  ping: {},
  register: { relay: 'text', allow: 'text' },
  unregister: { relay: 'text' },
  connect: { relay: 'text', allow: 'text', outlet: 'text?' },
  watch: { relay: 'text', allow: 'text' },
};

export type ParsedRequest<Ops, K extends keyof Ops = keyof Ops> = {
  [Op in K]: { readonly id: number | null; readonly op: Op; readonly body: RequestOf<Ops, Op> };
}[K];

/**
 * A request as its operation's table reads it: texts are strings ('' when absent), numbers are numbers
 * (NaN when absent), flags are true only when true. Undefined for an operation the table does not know.
 */
export function parseRequest<Ops>(
  fields: Fields<Ops>,
  message: Record<string, unknown>,
): ParsedRequest<Ops> | undefined {
  const op = message.op;
  if (typeof op !== 'string' || !Object.hasOwn(fields, op)) return undefined;
  const body = readRecord(fields[op as keyof Ops], message, 'lenient');
  return { id: typeof message.id === 'number' ? message.id : null, op, body } as ParsedRequest<Ops>;
}

/** The fields of each pushed event, its name among them. */
export type EventFields<Event extends { readonly event: string }> = {
  readonly [Name in Event['event']]: FieldTable<Extract<Event, { readonly event: Name }>>;
};

const relayEntryFields: FieldTable<RelayEntry> = { id: 'text', address: 'text', fingerprint: 'text' };

export const controllerEventFields: EventFields<ControllerEvent> = {
  // Entries a node cannot read are left out of the list; the others still count.
  relays: { event: 'text', relays: { records: relayEntryFields } },
  inlet: {
    event: 'text',
    advert: {
      record: { inlet: 'text', attributes: 'texts', via: 'text', addresses: 'texts', secret: 'text', warm: 'number' },
    },
  },
  'inlet-gone': { event: 'text', inlet: 'text' },
  revoked: { event: 'text', revoked: { records: { nodeId: 'text', until: 'number', proof: 'text?' } } },
  controllers: { event: 'text', addresses: 'texts' },
};

export const relayEventFields: EventFields<RelayEvent> = {
  dial: { event: 'text', splice: 'text', secret: 'text', from: 'text', relay: 'text?' },
  refused: { event: 'text', from: 'text', attributes: 'texts', count: 'number', relay: 'text?' },
  outlets: { event: 'text', relay: 'text', outlets: 'texts' },
};

/**
 * A pushed event as its table reads it: every field of its kind. Undefined for an event the table does
 * not know, or one with a field of another kind (a peer of this protocol version sends neither).
 */
export function parseEvent<Event extends { readonly event: string }>(
  fields: EventFields<Event>,
  message: Record<string, unknown>,
): Event | undefined {
  const name = message.event;
  if (typeof name !== 'string' || !Object.hasOwn(fields, name)) return undefined;
  return readRecord(fields[name as Event['event']], message, 'strict');
}
