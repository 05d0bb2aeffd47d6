/**
 * Names that must agree: each side's allow admits the other ticket's attributes, the inlet goes via its outlet's relay,
 * only the outlet ticket carries relays and only a TLS inlet's ticket --tls. Names the manifest leaves
 * out follow from the use case (portals.ts), so they agree by construction; these rules check the ones
 * it gives.
 */
import { durationRanges, durationSyntax, readDuration } from '../../shared/duration.ts';
import {
  describeAttributes,
  describePolicyProblem,
  evaluatePolicy,
  isBareName,
  parsePolicy,
  quotedPolicy,
} from '../../shared/policy.ts';
import { attributeListProblems } from '../../shared/policy/attributes.ts';
import {
  attributeOf,
  attributeReads,
  portalSources,
  relayOf,
  relayReads,
  ticketAttributesOf,
  type PortalSource,
} from '../portals.ts';
import type { Rule, RuleViolation } from '../rule-types.ts';

/** How a message names a field: outlet.allow for the single portal, portals[1].outlet.allow in a list. */
const field = (portal: PortalSource, role: 'outlet' | 'inlet', key: string): string =>
  portal.listed ? `portals[${portal.index}].${role}.${key}` : `${role}.${key}`;

const attributesPair: Rule = (manifest, sound) => {
  const found: RuleViolation[] = [];
  const known = sound.whole(...attributeReads('outlet'), ...attributeReads('inlet'));
  if (!known) return found;
  const outletAttribute = attributeOf(manifest, 'outlet');
  const inletAttribute = attributeOf(manifest, 'inlet');
  if (outletAttribute === inletAttribute) {
    found.push({
      pointer:
        manifest.tickets?.inlet?.attribute === undefined ? '/tickets/outlet/attribute' : '/tickets/inlet/attribute',
      message:
        `the inlet ticket's attribute equals the outlet ticket's ("${outletAttribute}"); ` +
        'give the two tickets different attributes so that each side can tell its peer apart',
    });
  }
  for (const role of ['outlet', 'inlet'] as const) {
    const pointer = `/tickets/${role}/attributes`;
    if (!sound.whole(pointer) || manifest.tickets?.[role]?.attributes === undefined) continue;
    const problems = attributeListProblems(ticketAttributesOf(manifest, role));
    if (problems.length > 0) found.push({ pointer, message: `${problems.join('; ')}` });
  }
  for (const portal of portalSources(manifest)) {
    for (const [role, other] of [
      ['outlet', 'inlet'],
      ['inlet', 'outlet'],
    ] as const) {
      const pointer = `${portal.pointers[role]}/allow`;
      const allow = portal[role].allow;
      if (!sound.whole(pointer) || allow === undefined) continue;
      const violation = allowViolation(allow, ticketAttributesOf(manifest, other), field(portal, role, 'allow'), role);
      if (violation !== undefined) found.push({ pointer, message: violation });
    }
  }
  return found;
};

/**
 * What is wrong with one side's allow: an expression that does not read (the column and what was
 * expected), or one that does not admit the other ticket's attributes. A bare name is told as before:
 * it must be the other ticket's attribute.
 */
function allowViolation(
  allow: string,
  attributes: readonly string[],
  where: string,
  role: 'outlet' | 'inlet',
): string | undefined {
  const other = role === 'outlet' ? 'inlet' : 'outlet';
  const reading = parsePolicy(allow);
  if (!reading.ok)
    return (
      `${where} is neither an attribute name nor an expression: ${describePolicyProblem(reading.problem)} ` +
      '(give a name such as postgres-inlet, or an expression such as team = "ops" and env = "prod")'
    );
  if (evaluatePolicy(reading.policy, attributes)) return undefined;
  const first = attributes[0] ?? '';
  if (isBareName(allow))
    return (
      `the ${role} allows "${allow}" but the ${other} ticket's attribute is ` + `"${first}"; set ${where} to "${first}"`
    );
  return (
    `the ${role}'s allow ${quotedPolicy(allow)} does not admit the ${other} ticket's attributes ` +
    `(${describeAttributes(attributes)}); change ${where}, or the attributes of tickets.${other}`
  );
}

/** The schema checks the spelling of expires-in; its value must also be a ticket lifetime the CLI accepts. */
const ticketLifetimes: Rule = (manifest, sound) =>
  (['outlet', 'inlet'] as const).flatMap((role) => {
    const pointer = `/tickets/${role}/expires-in`;
    const text = manifest.tickets?.[role]?.['expires-in'];
    if (!sound.whole(pointer) || text === undefined) return [];
    const reading = readDuration(text, durationRanges.ticket);
    if (reading.ok) return [];
    return [{ pointer, message: `"${text}" ${reading.reason}; give ${durationSyntax(durationRanges.ticket)}` }];
  });

const relayNames: Rule = (manifest, sound) => {
  const found: RuleViolation[] = [];
  if (sound.node('/tickets/inlet/relay') && manifest.tickets?.inlet?.relay !== undefined) {
    found.push({
      pointer: '/tickets/inlet/relay',
      at: 'key',
      message: 'only outlet tickets carry a relay; remove relay from the inlet ticket',
    });
  }
  const portals = portalSources(manifest);
  const single = portals[0];
  const ticketRelay = manifest.tickets?.outlet?.relay;
  if (single && !single.listed && sound.whole('/tickets/outlet/relay', '/outlet/relay')) {
    const relay = single.outlet.relay;
    if (relay !== undefined && ticketRelay !== undefined && relay !== ticketRelay) {
      found.push({
        pointer: '/outlet/relay',
        message:
          `the outlet registers relay "${relay}" but its ticket grants "${ticketRelay}"; ` +
          'use the same name in both',
      });
    }
  }
  const registeredBy = new Map<string, string>();
  for (const portal of portals) {
    if (!sound.whole(...relayReads(portal))) continue;
    const relay = relayOf(manifest, portal);
    const via = portal.inlet.via;
    if (sound.whole(`${portal.pointers.inlet}/via`) && via !== undefined && via !== relay) {
      found.push({
        pointer: `${portal.pointers.inlet}/via`,
        message:
          `the inlet goes via "${via}" but the outlet registers relay "${relay}"; ` +
          `set ${field(portal, 'inlet', 'via')} to "${relay}"`,
      });
    }
    const other = registeredBy.get(relay);
    // Two portals of one name are refused as such (shape.ts); their relays say nothing more.
    if (other !== undefined && other !== portal.name) {
      found.push({
        pointer: portal.outlet.relay === undefined ? portal.namePointer : `${portal.pointers.outlet}/relay`,
        message: `portals "${other}" and "${portal.name}" would register the same relay "${relay}"; give each its own`,
      });
    }
    registeredBy.set(relay, portal.name as string);
  }
  return found;
};

const tlsFlags: Rule = (manifest, sound) => {
  const found: RuleViolation[] = [];
  if (sound.node('/tickets/outlet/tls') && manifest.tickets?.outlet?.tls !== undefined) {
    found.push({
      pointer: '/tickets/outlet/tls',
      at: 'key',
      message: '--tls is for the ticket of an inlet that serves TLS, not for the outlet ticket; remove it',
    });
  }
  const portals = portalSources(manifest);
  if (!portals.every((portal) => sound.whole(`${portal.pointers.inlet}/tls`))) return found;
  const tlsInlets = portals.filter((portal) => portal.inlet.tls === true);
  const ticketTls = sound.whole('/tickets/inlet/tls') ? manifest.tickets?.inlet?.tls : undefined;
  if (ticketTls === true && tlsInlets.length === 0) {
    found.push({
      pointer: '/tickets/inlet/tls',
      message: portals[0]?.listed
        ? '--tls is given only where an inlet serves TLS, and none does; remove tls from the ticket'
        : '--tls is given only where the inlet serves TLS, and inlet.tls is false; ' +
          'remove tls from the ticket or set inlet.tls: true',
    });
  }
  if (ticketTls === false) {
    for (const portal of tlsInlets) {
      found.push({
        pointer: `${portal.pointers.inlet}/tls`,
        message:
          'an inlet that serves TLS needs a ticket issued with --tls; set tickets.inlet.tls: true (or remove it)',
      });
    }
  }
  return found;
};

export const nameRules: readonly Rule[] = [attributesPair, ticketLifetimes, relayNames, tlsFlags];
