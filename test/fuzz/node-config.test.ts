import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseNodeConfig } from '../../src/node/config.ts';
import { listenAddressesOverlap } from '../../src/node/config-rules.ts';
import { portalsOf } from '../../src/node/portals.ts';
import { parseHostPort } from '../../src/shared/address.ts';
import type { NodeConfig } from '../../src/shared/types/node-config.ts';
import { assertTypedRejection, fuzz, timed } from './fuzz.ts';
import { edited, rendered, yamlText } from './yaml-text.ts';

const name = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,62}$/);
const host = fc.oneof(
  fc.domain(),
  fc.ipV4(),
  fc.ipV6().map((address) => `[${address}]`),
);
const optionalTls = fc.option(fc.boolean(), { nil: undefined });

const outletPart = fc.record({
  relay: name,
  to: fc.tuple(host, fc.integer({ min: 1, max: 65535 })),
  allow: name,
  tls: optionalTls,
});
const inletPart = fc.record({
  from: fc.tuple(host, fc.integer({ min: 0, max: 65535 })),
  via: name,
  allow: name,
  tls: optionalTls,
});
type OutletPart = typeof outletPart extends fc.Arbitrary<infer T> ? T : never;
type InletPart = typeof inletPart extends fc.Arbitrary<infer T> ? T : never;

const tcpOutlet = (outlet: OutletPart) => ({
  to: outlet.to.join(':'),
  allow: outlet.allow,
  ...(outlet.tls === undefined ? {} : { tls: outlet.tls }),
});
const tcpInlet = (inlet: InletPart) => ({
  from: inlet.from.join(':'),
  via: inlet.via,
  allow: inlet.allow,
  ...(inlet.tls === undefined ? {} : { tls: inlet.tls }),
});

/**
 * Several portals by name that the rules let through: relay names apart, inlets on ports apart (0
 * included, which the system chooses) and relays only, so that no two direct paths share a relay name.
 */
const namedOutlets = fc
  .uniqueArray(fc.tuple(name, outletPart), {
    minLength: 1,
    maxLength: 3,
    selector: ([portal, outlet]) => `${portal} ${outlet.relay}`,
  })
  .filter((entries) => new Set(entries.map(([, outlet]) => outlet.relay)).size === entries.length);
const namedInlets = fc
  .uniqueArray(fc.tuple(name, inletPart), {
    minLength: 1,
    maxLength: 3,
    selector: ([portal]) => portal,
  })
  .filter((entries) =>
    entries.every(([, a], i) =>
      entries.slice(i + 1).every(([, b]) => !listenAddressesOverlap(a.from.join(':'), b.from.join(':'))),
    ),
  );

/** Configurations the node must accept: outlets, inlets or both, single or by name, optional keys or not. */
const validConfig: fc.Arbitrary<NodeConfig> = fc
  .record(
    {
      outlet: outletPart,
      inlet: inletPart,
      outlets: namedOutlets,
      inlets: namedInlets,
      port: fc.integer({ min: 0, max: 65535 }),
      ticket: fc.string({ unit: 'binary', maxLength: 80 }),
    },
    { requiredKeys: [] },
  )
  .filter(({ outlet, inlet, outlets, inlets }) => [outlet, inlet, outlets, inlets].some((part) => part !== undefined))
  // One form of each kind: single and by name together are refused.
  .filter(({ outlet, inlet, outlets, inlets }) => !(outlet && outlets) && !(inlet && inlets))
  .map(({ outlet, inlet, outlets, inlets, port, ticket }) => ({
    ...(outlet ? { relay: outlet.relay, 'tcp-outlet': tcpOutlet(outlet) } : {}),
    ...(outlets
      ? {
          'tcp-outlets': Object.fromEntries(
            outlets.map(([portal, part]) => [portal, { relay: part.relay, ...tcpOutlet(part) }]),
          ),
        }
      : {}),
    ...(inlet ? { 'tcp-inlet': tcpInlet(inlet) } : {}),
    ...(inlets
      ? {
          'tcp-inlets': Object.fromEntries(
            inlets.map(([portal, part]) => [portal, { ...tcpInlet(part), direct: false }]),
          ),
        }
      : {}),
    ...(port === undefined ? {} : { 'http-server-port': port }),
    ...(ticket === undefined ? {} : { ticket }),
  }));

const file = 'node.yaml';

/** Parses; a rejection must be the project's located ValidationError. Returns undefined when refused. */
function parsed(text: string): NodeConfig | undefined {
  try {
    return timed(2000, () => parseNodeConfig(file, text));
  } catch (error) {
    assertTypedRejection(error, file);
    return undefined;
  }
}

/** What every accepted configuration is: plain data, no bigger than its text allows, and meeting the node's rules. */
function assertAccepted(config: NodeConfig, text: string): void {
  const json = JSON.stringify(config);
  assert.deepEqual(JSON.parse(json), config, 'plain JSON data (no Map, Set, Date or binary from YAML tags)');
  assert.ok(
    json.length <= 8 * text.length + 256,
    `${json.length} characters of configuration from ${text.length} of text`,
  );
  const { outlets, inlets } = portalsOf(config);
  assert.ok(outlets.length + inlets.length > 0, 'an outlet or an inlet');
  if (config['tcp-outlet']) assert.ok(config.relay, 'a single outlet has a relay');
  for (const outlet of outlets) assert.ok(parseHostPort(outlet.to).ok, `outlet target ${outlet.to}`);
  for (const inlet of inlets) assert.ok(parseHostPort(inlet.from, true).ok, `inlet address ${inlet.from}`);
  assert.equal(new Set(outlets.map((outlet) => outlet.relay)).size, outlets.length, 'relay names apart');
}

describe('fuzz: node configuration (parseNodeConfig)', () => {
  it(
    'accepts a configuration that meets its rules or ' + 'refuses it with located problems, for any YAML text',
    async () => {
      await fuzz(
        'node configuration, any text',
        fc.property(yamlText(), (text) => {
          const config = parsed(text);
          if (config) assertAccepted(config, text);
        }),
        300,
      );
    },
  );

  it('does the same for valid configurations edited anywhere, in YAML or JSON', async () => {
    await fuzz(
      'node configuration, edited',
      fc.property(
        validConfig.chain((config) => edited(config)).chain((data) => rendered(data)),
        (text) => {
          const config = parsed(text);
          if (config) assertAccepted(config, text);
        },
      ),
      300,
    );
  });

  it('reads back every valid configuration written as YAML, flow YAML or JSON', async () => {
    await fuzz(
      'node configuration round trip',
      fc.property(
        validConfig.chain((config) => fc.tuple(fc.constant(config), rendered(config))),
        ([config, text]) => {
          assert.deepEqual(parseNodeConfig(file, text), config);
        },
      ),
      200,
    );
  });
});
