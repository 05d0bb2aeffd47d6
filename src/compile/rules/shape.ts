/**
 * The two forms of a manifest: one portal (outlet with to, inlet with port, verification) or several
 * (portals, with outlet and inlet choosing only the nodes' instance types), and names that must differ.
 */
import { isMapping as isObject, pascalName, portalSources } from '../portals.ts';
import type { Rule, RuleViolation } from '../rule-types.ts';

/** Without portals, the outlet's target and the inlet's port are required. */
const singlePortal: Rule = (manifest, sound) => {
  if (manifest.portals !== undefined || !sound.node('')) return [];
  const found: RuleViolation[] = [];
  for (const [role, key] of [
    ['outlet', 'to'],
    ['inlet', 'port'],
  ] as const) {
    if (manifest[role] === undefined) {
      found.push({ pointer: '', message: `missing required key "${role}" (or list the portals under portals)` });
    } else if (sound.node(`/${role}`) && isObject(manifest[role]) && manifest[role][key] === undefined) {
      found.push({ pointer: `/${role}`, message: `missing required key "${key}"` });
    }
  }
  return found;
};

/** With portals, what belongs to a portal is written in it, not beside the list. */
const listedPortals: Rule = (manifest, sound) => {
  if (manifest.portals === undefined) return [];
  const found: RuleViolation[] = [];
  for (const role of ['outlet', 'inlet'] as const) {
    const node = manifest[role];
    if (!sound.node(`/${role}`) || !isObject(node)) continue;
    for (const key of Object.keys(node)) {
      if (key === 'instance-type' || (role === 'outlet' && key === 'replicas')) continue;
      found.push({
        pointer: `/${role}/${key}`,
        at: 'key',
        message:
          `with portals, each portal gives its own ${role} ${key}; ` +
          `only ${role === 'outlet' ? 'instance-type and replicas belong' : 'instance-type belongs'} here, ` +
          `so move ${key} into the portals`,
      });
    }
  }
  if (manifest.verification !== undefined) {
    found.push({
      pointer: '/verification',
      at: 'key',
      message: 'with portals, each portal gives its own verification; move it into the portals it checks',
    });
  }
  if (sound.node('/tickets/outlet/relay') && manifest.tickets?.outlet?.relay !== undefined) {
    found.push({
      pointer: '/tickets/outlet/relay',
      at: 'key',
      message: "with portals, the outlet ticket grants every portal's relay; remove relay here",
    });
  }
  return found;
};

/** Portal names key the node configurations and name stack resources: each its own. */
const distinctNames: Rule = (manifest, sound) => {
  if (!Array.isArray(manifest.portals)) return [];
  const found: RuleViolation[] = [];
  const byName = new Map<string, number>();
  const byId = new Map<string, string>();
  for (const portal of portalSources(manifest)) {
    if (!sound.whole(portal.namePointer) || portal.name === undefined) continue;
    const earlier = byName.get(portal.name);
    const sameId = byId.get(pascalName(portal.name));
    if (earlier !== undefined) {
      found.push({
        pointer: portal.namePointer,
        message: `portal "${portal.name}" is also the name of portals[${earlier}]; give each portal its own name`,
      });
    } else if (sameId !== undefined) {
      found.push({
        pointer: portal.namePointer,
        message:
          `portals "${sameId}" and "${portal.name}" would give the stacks the same resource names; ` +
          'rename one of them',
      });
    }
    byName.set(portal.name, portal.index);
    byId.set(pascalName(portal.name), portal.name);
  }
  return found;
};

/** Every outlet replica enrolls with the one outlet ticket: it must allow that many enrollments. */
const enrollmentsForReplicas: Rule = (manifest, sound) => {
  const replicas = manifest.outlet?.replicas;
  const usageCount = manifest.tickets?.outlet?.['usage-count'];
  if (!sound.whole('/outlet/replicas') || !sound.whole('/tickets/outlet/usage-count')) return [];
  if (replicas === undefined || usageCount === undefined || usageCount >= replicas) return [];
  return [
    {
      pointer: '/tickets/outlet/usage-count',
      message:
        `the outlet ticket allows ${usageCount} enrollment${usageCount === 1 ? '' : 's'} but outlet.replicas ` +
        `asks for ${replicas} outlets, each enrolled with it; raise usage-count to ${replicas} or remove it`,
    },
  ];
};

export const shapeRules: readonly Rule[] = [singlePortal, listedPortals, distinctNames, enrollmentsForReplicas];
