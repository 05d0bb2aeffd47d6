/**
 * What each kind of reported record can truthfully say (docs/audit.md, "What a reported record may
 * say"): who may report it, whom it names, which details it carries and of which values. A record
 * that says more, or other, is not written. Pure.
 */
import type { PeerIdentity } from '../pki/identity.ts';
import type { AuditDetails, AuditValue, ReportedEventKind } from '../wire/protocol/audit.ts';

/** What the store knows of a member a record names. */
export interface NamedMember {
  readonly relayNode: boolean;
  readonly revoked: boolean;
}

export interface ReportFacts {
  readonly reporter: PeerIdentity;
  readonly members: readonly string[];
  /** What the store knows of each of `members`, in order; undefined where it is no member of the project. */
  readonly named: readonly (NamedMember | undefined)[];
  readonly details: AuditDetails;
}

type Check = (value: AuditValue | undefined) => boolean;

/** A count no honest report comes near, still far from where numbers lose their precision. */
const maxCount = 1_000_000_000_000;

const text =
  (max: number): Check =>
  (value) =>
    typeof value === 'string' && value.length <= max;
const name = text(100);
const oneOf =
  (...values: readonly string[]): Check =>
  (value) =>
    typeof value === 'string' && values.includes(value);
const nullable =
  (check: Check): Check =>
  (value) =>
    value === null || check(value);
const count =
  (min: number): Check =>
  (value) =>
    typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= maxCount;
const isoTime: Check = (value) =>
  typeof value === 'string' &&
  /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z$/.test(value) &&
  !Number.isNaN(Date.parse(value));

interface DetailShape {
  readonly required: Readonly<Record<string, Check>>;
  readonly optional?: Readonly<Record<string, Check>>;
}

/** Every required key present and valid, every other key optional and valid. */
function fitsShape(details: AuditDetails, shape: DetailShape): boolean {
  for (const [key, check] of Object.entries(shape.required)) if (!check(details[key])) return false;
  for (const [key, value] of Object.entries(details)) {
    if (Object.hasOwn(shape.required, key)) continue;
    const check = shape.optional?.[key];
    if (!check?.(value)) return false;
  }
  return true;
}

const sessionShape: DetailShape = {
  required: {
    portal: name,
    path: oneOf('direct', 'relay'),
    relay: nullable(name),
    opened_at: isoTime,
    duration_ms: count(0),
    bytes_from_client: count(0),
    bytes_to_client: count(0),
    ended: oneOf('closed', 'cut'),
  },
  optional: { reason: text(200) },
};

const refusedShape: DetailShape = {
  required: {
    reason: oneOf('allow', 'untrusted', 'limits', 'revoked', 'many-peers'),
    count: count(1),
  },
  optional: { portal: nullable(name), first_at: isoTime, detail: text(300) },
};

const revokedCutShape: DetailShape = { required: { connections: count(1) } };

const droppedShape: DetailShape = {
  required: { count: count(1), first_at: isoTime, last_at: isoTime },
  optional: { bound_records: count(0), bound_bytes: count(0) },
};

/** A member of the project other than the reporter. */
const isOther = (facts: ReportFacts, index: number) =>
  facts.named[index] !== undefined && facts.members[index] !== facts.reporter.nodeId;

export const reportRules: Readonly<Record<ReportedEventKind, (facts: ReportFacts) => boolean>> = {
  // An inlet's client connection: the inlet itself, then the outlet that carried it (when it knew it).
  session: (facts) =>
    !facts.reporter.relayNode &&
    facts.members[0] === facts.reporter.nodeId &&
    (facts.members.length === 1 || (facts.members.length === 2 && isOther(facts, 1) && !facts.named[1]?.relayNode)) &&
    fitsShape(facts.details, sessionShape),
  // Refusals of one peer (a member of the project; a revoked one when that is the reason), or of many.
  refused: (facts) => {
    const reason = facts.details.reason;
    if (facts.members.length > 1 || (reason === 'many-peers' && facts.members.length > 0)) return false;
    if (facts.members.length === 1 && (!isOther(facts, 0) || (reason === 'revoked' && !facts.named[0]?.revoked)))
      return false;
    return fitsShape(facts.details, refusedShape);
  },
  // Connections of a member that was revoked, closed by the reporter when it heard of it.
  'revoked-cut': (facts) =>
    facts.members.length === 1 &&
    isOther(facts, 0) &&
    facts.named[0]?.revoked === true &&
    fitsShape(facts.details, revokedCutShape),
  // The reporter's own loss: it names nobody.
  'reports-dropped': (facts) => facts.members.length === 0 && fitsShape(facts.details, droppedShape),
};
