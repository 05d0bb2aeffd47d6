/**
 * Names that must agree: each side allows the other's attribute, the inlet goes via its outlet's relay,
 * only the outlet ticket carries relays and only a TLS inlet's ticket --tls. Names the manifest leaves
 * out follow from the use case (portals.ts), so they agree by construction; these rules check the ones
 * it gives.
 */
import { durationRanges, durationSyntax, readDuration } from '../../shared/duration.ts';
import { attributeOf, attributeReads, portalSources, relayOf, relayReads, type PortalSource } from '../portals.ts';
import type { Rule, RuleViolation } from '../rules.ts';

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
  for (const portal of portalSources(manifest)) {
    const outletAllow = `${portal.pointers.outlet}/allow`;
    if (sound.whole(outletAllow) && portal.outlet.allow !== undefined && portal.outlet.allow !== inletAttribute) {
      found.push({
        pointer: outletAllow,
        message:
          `the outlet allows "${portal.outlet.allow}" but the inlet ticket's attribute is ` +
          `"${inletAttribute}"; set ${field(portal, 'outlet', 'allow')} to "${inletAttribute}"`,
      });
    }
    const inletAllow = `${portal.pointers.inlet}/allow`;
    if (sound.whole(inletAllow) && portal.inlet.allow !== undefined && portal.inlet.allow !== outletAttribute) {
      found.push({
        pointer: inletAllow,
        message:
          `the inlet allows "${portal.inlet.allow}" but the outlet ticket's attribute is ` +
          `"${outletAttribute}"; set ${field(portal, 'inlet', 'allow')} to "${outletAttribute}"`,
      });
    }
  }
  return found;
};

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
