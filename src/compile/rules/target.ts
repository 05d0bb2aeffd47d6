/**
 * Each outlet's target: host:port, or a placeholder $NAME whose value the deployment gives, and the
 * endpoint that says where that value comes from (a stack parameter, or a private endpoint the stack
 * creates). Names given to CloudFormation are checked against its rules at the field.
 */
import { isPort, parseHostPort } from '../../shared/address.ts';
import type { EndpointManifest } from '../../shared/types/manifest.ts';
import { parameterName, pascalName, portalSources, type PortalSource } from '../portals.ts';
import type { Rule, RuleViolation } from '../rule-types.ts';
import { builtInLogicalIds, portalIds } from '../stack/context.ts';

const placeholderName = /^[A-Z][A-Z_]{0,62}$/;

/** What the target alone must be: host:port, or a placeholder $NAME with a port in range. */
function targetViolations(portal: PortalSource): RuleViolation[] {
  const pointer = `${portal.pointers.outlet}/to`;
  const to = portal.outlet.to;
  if (to === undefined) return [];
  const placeholder = /^\$([^:]*)(?::(.*))?$/.exec(to);
  if (!placeholder) {
    const parsed = parseHostPort(to);
    return parsed.ok ? [] : [{ pointer, message: `expected host:port, but ${parsed.reason}` }];
  }
  const [, name = '', portText] = placeholder;
  const found: RuleViolation[] = [];
  if (!placeholderName.test(name)) {
    found.push({
      pointer,
      message:
        `"$${name}" is not a placeholder: ` +
        'write an upper-case name of letters and underscores, such as $REDIS_ENDPOINT',
    });
  }
  if (portText !== undefined && (!/^[0-9]{1,5}$/.test(portText) || !isPort(Number(portText)))) {
    found.push({ pointer, message: `port "${portText}" is out of range; expected a whole number from 1 to 65535` });
  }
  return found;
}

/** What the target and its endpoint must agree on: the placeholder, and which of them gives the port. */
function endpointMatchViolations(portal: PortalSource): RuleViolation[] {
  const base = portal.pointers.outlet;
  const { to, endpoint } = portal.outlet;
  if (to === undefined) return [];
  const placeholder = /^\$([^:]*)(?::(.*))?$/.exec(to);
  if (!placeholder) {
    if (!endpoint) return [];
    return [
      {
        pointer: `${base}/endpoint`,
        at: 'key',
        message:
          'the target uses no $NAME placeholder, so nothing takes the endpoint; use one in to or remove endpoint',
      },
    ];
  }
  const [, name = '', portText] = placeholder;
  const found: RuleViolation[] = [];
  if (placeholderName.test(name) && endpoint?.placeholder !== undefined && endpoint.placeholder !== name) {
    found.push({
      pointer: `${base}/to`,
      message:
        `the target uses $${name} but the endpoint replaces $${endpoint.placeholder}; ` +
        'use the same placeholder in both (or leave endpoint.placeholder out)',
    });
  }
  if (portText === undefined && endpoint?.port === undefined) {
    found.push({
      pointer: endpoint ? `${base}/endpoint` : `${base}/to`,
      message:
        `the target is the bare placeholder, so its value must carry the port; ` +
        `write $${name}:<port>, or give endpoint.port when the value is host:port`,
    });
  }
  if (portText !== undefined && endpoint?.port !== undefined) {
    found.push({
      pointer: `${base}/endpoint/port`,
      at: 'key',
      message: 'the target already gives the port; remove endpoint.port',
    });
  }
  return found;
}

const targetAddress: Rule = (manifest, sound) =>
  portalSources(manifest).flatMap((portal) => {
    const to = `${portal.pointers.outlet}/to`;
    return [
      ...(sound.whole(to) ? targetViolations(portal) : []),
      ...(sound.whole(to, `${portal.pointers.outlet}/endpoint`) ? endpointMatchViolations(portal) : []),
    ];
  });

function sourceViolations(endpoint: EndpointManifest, pointer: string, takenIds: ReadonlySet<string>): RuleViolation[] {
  const found: RuleViolation[] = [];
  if ((endpoint.source ?? 'parameter') === 'parameter') {
    const derived = endpoint.placeholder ? parameterName(endpoint.placeholder) : undefined;
    const parameter = endpoint.parameter ?? derived;
    if (parameter !== undefined && takenIds.has(parameter)) {
      const suggestion = derived !== undefined && derived !== parameter ? derived : `${derived ?? 'Target'}Value`;
      found.push({
        pointer: endpoint.parameter === undefined ? pointer : `${pointer}/parameter`,
        message:
          `"${parameter}" is already a name in the stack; choose another` +
          `${endpoint.parameter === undefined ? ' with parameter:' : ','} such as ${suggestion}`,
      });
    }
    if (endpoint.service !== undefined)
      found.push({
        pointer: `${pointer}/service`,
        at: 'key',
        message: 'service is only for source: vpc-endpoint; remove it',
      });
  } else {
    if (endpoint.service === undefined)
      found.push({
        pointer,
        message: 'an endpoint created by the stack needs service: <service name>, such as bedrock-runtime',
      });
    if (endpoint.parameter !== undefined)
      found.push({
        pointer: `${pointer}/parameter`,
        at: 'key',
        message: 'parameter is only for source: parameter; remove it',
      });
  }
  return [...found, ...exampleViolations(endpoint, pointer)];
}

function exampleViolations(endpoint: EndpointManifest, endpointPointer: string): RuleViolation[] {
  const pointer = `${endpointPointer}/example`;
  if (endpoint.example === undefined) return [];
  const slash = endpoint.example.indexOf('/');
  if (slash >= 0) {
    return [
      { pointer, message: `the endpoint must not end in /<database_name>; remove "${endpoint.example.slice(slash)}"` },
    ];
  }
  if (endpoint.port === undefined) {
    return endpoint.example.includes(':')
      ? [{ pointer, message: 'expected a host without a port: the configuration appends the port' }]
      : [];
  }
  const parsed = parseHostPort(endpoint.example);
  if (!parsed.ok) return [{ pointer, message: `expected host:port, but ${parsed.reason}` }];
  if (parsed.address.port !== endpoint.port) {
    return [
      { pointer, message: `the example's port ${parsed.address.port} differs from endpoint.port ${endpoint.port}` },
    ];
  }
  return [];
}

/** Logical ids the stacks define for these portals, which an endpoint parameter must not take. */
function stackIds(portals: readonly PortalSource[]): Set<string> {
  const taken = new Set(builtInLogicalIds);
  for (const portal of portals) {
    // A name the schema refused (not text) takes no id: its problem is reported at the field.
    const part = portal.listed && typeof portal.name === 'string' ? pascalName(portal.name) : '';
    for (const id of Object.values(portalIds)) taken.add(id(part));
  }
  return taken;
}

const endpointSources: Rule = (manifest, sound) => {
  const portals = portalSources(manifest);
  const taken = stackIds(portals);
  const found: RuleViolation[] = [];
  /** Placeholder → the first endpoint that defines it, and the parameter names in use. */
  const byPlaceholder = new Map<string, { endpoint: string; parameter: string | undefined }>();
  const parameters = new Map<string, string>();
  for (const portal of portals) {
    const pointer = `${portal.pointers.outlet}/endpoint`;
    if (!sound.whole(pointer, `${portal.pointers.outlet}/to`) || !portal.outlet.to) continue;
    const usesPlaceholder = /^\$([A-Z][A-Z_]*)(?::|$)/.exec(portal.outlet.to);
    const given = portal.outlet.endpoint;
    if (!usesPlaceholder && !given) continue;
    const endpoint: EndpointManifest = { ...given, placeholder: given?.placeholder ?? usesPlaceholder?.[1] };
    found.push(...sourceViolations(endpoint, pointer, taken));
    if (!endpoint.placeholder) continue;
    const definition = JSON.stringify({ ...endpoint, label: undefined, example: undefined });
    const parameter =
      (endpoint.source ?? 'parameter') === 'parameter'
        ? (endpoint.parameter ?? parameterName(endpoint.placeholder))
        : undefined;
    const earlier = byPlaceholder.get(endpoint.placeholder);
    if (earlier && earlier.endpoint !== definition) {
      found.push({
        pointer,
        message:
          `another portal gives $${endpoint.placeholder} another endpoint; ` +
          'portals that share a placeholder share its endpoint: give it once, or use another placeholder',
      });
    } else if (!earlier && parameter !== undefined && parameters.has(parameter)) {
      found.push({
        pointer: given?.parameter === undefined ? pointer : `${pointer}/parameter`,
        message:
          `stack parameter "${parameter}" would also take $${parameters.get(parameter)}; ` +
          'give this endpoint another parameter name',
      });
    }
    if (!earlier) byPlaceholder.set(endpoint.placeholder, { endpoint: definition, parameter });
    if (parameter !== undefined && !parameters.has(parameter)) parameters.set(parameter, endpoint.placeholder);
  }
  return found;
};

const webhookTarget: Rule = (manifest, sound) =>
  portalSources(manifest).flatMap((portal) => {
    if (!sound.whole(portal.pointers.verification, `${portal.pointers.outlet}/to`)) return [];
    if (portal.verification?.kind !== 'webhook' || !portal.outlet.to?.startsWith('$')) return [];
    return [
      {
        pointer: `${portal.pointers.outlet}/to`,
        message: 'the webhook receiver runs beside the outlet: give the target as host:port, such as localhost:7777',
      },
    ];
  });

export const targetRules: readonly Rule[] = [targetAddress, endpointSources, webhookTarget];
