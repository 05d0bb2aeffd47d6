/**
 * Rules that span several fields of a manifest: the ones a JSON Schema cannot say. Pure: a manifest
 * that passed the schema in, violations (JSON pointer and message) out.
 */
import { isPort, parseHostPort } from '../shared/address.ts';
import { durationRanges, durationSyntax, readDuration } from '../shared/duration.ts';
import { product } from '../shared/product.ts';
import type { ContainerManifest, EndpointManifest, UseCaseManifest } from '../shared/types/manifest.ts';
import { builtInLogicalIds } from './stack/context.ts';
import { stackLimitViolations } from './stack/limits.ts';

export interface RuleViolation {
  readonly pointer: string;
  readonly message: string;
  /** Point at the key rather than its value (for keys that must not be there). */
  readonly at?: 'key' | 'value';
}

type Rule = (manifest: UseCaseManifest) => RuleViolation[];

const attributesPair: Rule = ({ tickets, outlet, inlet }) => {
  const found: RuleViolation[] = [];
  if (tickets.outlet.attribute === tickets.inlet.attribute) {
    found.push({
      pointer: '/tickets/inlet/attribute',
      message:
        `the inlet ticket's attribute equals the outlet ticket's ("${tickets.outlet.attribute}"); ` +
        'give the two tickets different attributes so that each side can tell its peer apart',
    });
  }
  if (outlet.allow !== tickets.inlet.attribute) {
    found.push({
      pointer: '/outlet/allow',
      message:
        `the outlet allows "${outlet.allow}" but the inlet ticket's attribute is ` +
        `"${tickets.inlet.attribute}"; set outlet.allow to "${tickets.inlet.attribute}"`,
    });
  }
  if (inlet.allow !== tickets.outlet.attribute) {
    found.push({
      pointer: '/inlet/allow',
      message:
        `the inlet allows "${inlet.allow}" but the outlet ticket's attribute is ` +
        `"${tickets.outlet.attribute}"; set inlet.allow to "${tickets.outlet.attribute}"`,
    });
  }
  return found;
};

/** The schema checks the spelling of expires-in; its value must also be a ticket lifetime the CLI accepts. */
const ticketLifetimes: Rule = ({ tickets }) =>
  (['outlet', 'inlet'] as const).flatMap((role) => {
    const text = tickets[role]['expires-in'];
    const reading = readDuration(text, durationRanges.ticket);
    if (reading.ok) return [];
    return [
      {
        pointer: `/tickets/${role}/expires-in`,
        message: `"${text}" ${reading.reason}; give ${durationSyntax(durationRanges.ticket)}`,
      },
    ];
  });

const relayNames: Rule = ({ tickets, outlet, inlet }) => {
  const found: RuleViolation[] = [];
  if (tickets.inlet.relay !== undefined) {
    found.push({
      pointer: '/tickets/inlet/relay',
      at: 'key',
      message: 'only outlet tickets carry a relay; remove relay from the inlet ticket',
    });
  }
  if (tickets.outlet.relay === undefined) {
    found.push({
      pointer: '/tickets/outlet',
      message: `the outlet ticket needs relay: "${outlet.relay}" so that the outlet may register its relay`,
    });
  } else if (tickets.outlet.relay !== outlet.relay) {
    found.push({
      pointer: '/outlet/relay',
      message:
        `the outlet registers relay "${outlet.relay}" but its ticket grants "${tickets.outlet.relay}"; ` +
        'use the same name in both',
    });
  }
  if (inlet.via !== outlet.relay) {
    found.push({
      pointer: '/inlet/via',
      message:
        `the inlet goes via "${inlet.via}" but the outlet registers relay "${outlet.relay}"; ` +
        `set inlet.via to "${outlet.relay}"`,
    });
  }
  return found;
};

const tlsFlags: Rule = ({ tickets, inlet, verification }) => {
  const found: RuleViolation[] = [];
  if (tickets.outlet.tls !== undefined) {
    found.push({
      pointer: '/tickets/outlet/tls',
      at: 'key',
      message: '--tls is for the ticket of an inlet that serves TLS, not for the outlet ticket; remove it',
    });
  }
  if (tickets.inlet.tls === true && !inlet.tls) {
    found.push({
      pointer: '/tickets/inlet/tls',
      message:
        '--tls is given only where the inlet serves TLS, and inlet.tls is false; ' +
        'remove tls from the ticket or set inlet.tls: true',
    });
  }
  if (inlet.tls && tickets.inlet.tls !== true) {
    found.push({
      pointer: '/inlet/tls',
      message: 'an inlet that serves TLS needs a ticket issued with --tls; set tickets.inlet.tls: true',
    });
  }
  if (verification.kind === 'invoke-model' && !inlet.tls) {
    found.push({
      pointer: '/verification/kind',
      message: 'the model runtime is reached over HTTPS; invoke-model verification needs inlet.tls: true',
    });
  }
  return found;
};

const targetAddress: Rule = ({ outlet }) => {
  const { to, endpoint } = outlet;
  const placeholder = /^\$([A-Z_]+)(?::(.*))?$/.exec(to);
  if (!placeholder) {
    const parsed = parseHostPort(to);
    const found: RuleViolation[] = [];
    if (!parsed.ok) found.push({ pointer: '/outlet/to', message: `expected host:port, but ${parsed.reason}` });
    if (endpoint) {
      found.push({
        pointer: '/outlet/endpoint',
        at: 'key',
        message: `outlet.to does not use $${endpoint.placeholder}; use it in outlet.to or remove the endpoint`,
      });
    }
    return found;
  }
  const [, name, portText] = placeholder;
  if (!endpoint) {
    return [
      {
        pointer: '/outlet/to',
        message: `$${name} is a placeholder, but the outlet has no endpoint to replace it; add outlet.endpoint`,
      },
    ];
  }
  const found: RuleViolation[] = [];
  if (endpoint.placeholder !== name) {
    found.push({
      pointer: '/outlet/to',
      message:
        `outlet.to uses $${name} but the endpoint replaces $${endpoint.placeholder}; ` +
        'use the same placeholder in both',
    });
  }
  if (portText === undefined) {
    if (endpoint.port === undefined) {
      found.push({
        pointer: '/outlet/endpoint',
        message: `outlet.to is the bare placeholder, so the endpoint value carries the port; give endpoint.port`,
      });
    }
  } else {
    const port = Number(portText);
    if (!/^[0-9]{1,5}$/.test(portText) || !isPort(port)) {
      found.push({
        pointer: '/outlet/to',
        message: `port "${portText}" is out of range; expected a whole number from 1 to 65535`,
      });
    }
    if (endpoint.port !== undefined) {
      found.push({
        pointer: '/outlet/endpoint/port',
        at: 'key',
        message: 'outlet.to already gives the port; remove endpoint.port',
      });
    }
  }
  return found;
};

const endpointSource: Rule = ({ outlet }) => {
  const endpoint = outlet.endpoint;
  if (!endpoint) return [];
  const found: RuleViolation[] = [];
  if (endpoint.source === 'parameter') {
    if (endpoint.parameter === undefined)
      found.push({
        pointer: '/outlet/endpoint',
        message: 'an endpoint given as a stack parameter needs parameter: <ParameterName>',
      });
    if (endpoint.parameter !== undefined && builtInLogicalIds.includes(endpoint.parameter)) {
      found.push({
        pointer: '/outlet/endpoint/parameter',
        message:
          `"${endpoint.parameter}" is already a name in the stack; choose another, ` +
          `such as ${endpoint.placeholder.split('_').map(titleCase).join('')}`,
      });
    }
    if (endpoint.service !== undefined)
      found.push({
        pointer: '/outlet/endpoint/service',
        at: 'key',
        message: 'service is only for source: vpc-endpoint; remove it',
      });
  } else {
    if (endpoint.service === undefined)
      found.push({
        pointer: '/outlet/endpoint',
        message: 'an endpoint created by the stack needs service: <service name>, such as bedrock-runtime',
      });
    if (endpoint.parameter !== undefined)
      found.push({
        pointer: '/outlet/endpoint/parameter',
        at: 'key',
        message: 'parameter is only for source: parameter; remove it',
      });
  }
  return [...found, ...endpointExample(endpoint)];
};

function endpointExample(endpoint: EndpointManifest): RuleViolation[] {
  const pointer = '/outlet/endpoint/example';
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

const containerNetwork: Rule = ({ container, inlet }) => {
  if (!container) return [];
  return container['network-mode'] === 'host' ? hostNetwork(container) : bridgeNetwork(container, inlet.port);
};

function hostNetwork(container: ContainerManifest): RuleViolation[] {
  if ((container.publish ?? []).length === 0) return [];
  return [
    {
      pointer: '/container/publish',
      at: 'key',
      message: 'a container on the host network publishes no ports; remove publish or use network-mode: bridge',
    },
  ];
}

function bridgeNetwork(container: ContainerManifest, inletPort: number): RuleViolation[] {
  const found: RuleViolation[] = [];
  if (container.listen !== '0.0.0.0') {
    found.push({
      pointer: '/container/listen',
      message: 'on a bridge network the inlet must listen on 0.0.0.0 to be reached through the published port',
    });
  }
  const publish = container.publish ?? [];
  for (const [index, mapping] of publish.entries()) {
    const ports = mapping.split(':').map(Number);
    if (!ports.every(isPort))
      found.push({
        pointer: `/container/publish/${index}`,
        message: `"${mapping}" has a port out of range; expected ports from 1 to 65535`,
      });
  }
  if (!publish.some((mapping) => mapping.endsWith(`:${inletPort}`))) {
    found.push({
      pointer: '/container/publish',
      message: `a bridge container must publish the inlet port; add "${inletPort}:${inletPort}"`,
    });
  }
  return found;
}

const distinctPorts: Rule = (manifest) => {
  const statusPort = manifest['status-port'];
  if (statusPort === manifest.inlet.port) {
    return [
      {
        pointer: '/status-port',
        message: `the status server and the inlet would both listen on port ${statusPort}; choose another status-port`,
      },
    ];
  }
  // The stack inlet's direct path listens on every interface at this port (tcp-inlet.direct).
  const direct = product.directPort;
  if (manifest.inlet.port === direct) {
    return [
      {
        pointer: '/inlet/port',
        message: `the stack inlet's direct path listens on port ${direct}; choose another inlet port`,
      },
    ];
  }
  if (statusPort === direct) {
    return [
      {
        pointer: '/status-port',
        message: `the stack inlet's direct path listens on port ${direct}; choose another status-port`,
      },
    ];
  }
  const target = parseHostPort(manifest.outlet.to);
  const local = target.ok && ['localhost', '127.0.0.1', '[::1]'].includes(target.address.host);
  if (local && target.ok && target.address.port === statusPort) {
    return [
      {
        pointer: '/status-port',
        message: `the outlet's target listens on port ${statusPort} of the same machine; choose another status-port`,
      },
    ];
  }
  return [];
};

const webhookTarget: Rule = ({ outlet, verification }) => {
  if (verification.kind !== 'webhook' || !outlet.to.startsWith('$')) return [];
  return [
    {
      pointer: '/outlet/to',
      message: 'the webhook receiver runs beside the outlet: give outlet.to as host:port, such as localhost:7777',
    },
  ];
};

function titleCase(word: string): string {
  return word.charAt(0) + word.slice(1).toLowerCase();
}

const rules: readonly Rule[] = [
  attributesPair,
  ticketLifetimes,
  relayNames,
  tlsFlags,
  targetAddress,
  endpointSource,
  containerNetwork,
  distinctPorts,
  webhookTarget,
];

export function checkRules(manifest: UseCaseManifest): RuleViolation[] {
  const found = rules.flatMap((rule) => rule(manifest));
  // The stacks are built only from a manifest whose fields agree; then CloudFormation's limits are checked.
  return found.length > 0 ? found : stackLimitViolations(manifest);
}
