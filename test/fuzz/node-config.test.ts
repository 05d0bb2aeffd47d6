import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseNodeConfig } from '../../src/node/config.ts';
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

/** Configurations the node must accept: an outlet, an inlet, or both, with the optional keys or not. */
const validConfig: fc.Arbitrary<NodeConfig> = fc
  .record(
    {
      outlet: fc.record({
        relay: name,
        to: fc.tuple(host, fc.integer({ min: 1, max: 65535 })),
        allow: name,
        tls: optionalTls,
      }),
      inlet: fc.record({
        from: fc.tuple(host, fc.integer({ min: 0, max: 65535 })),
        via: name,
        allow: name,
        tls: optionalTls,
      }),
      port: fc.integer({ min: 0, max: 65535 }),
      ticket: fc.string({ unit: 'binary', maxLength: 80 }),
    },
    { requiredKeys: [] },
  )
  .filter((parts) => parts.outlet !== undefined || parts.inlet !== undefined)
  .map(({ outlet, inlet, port, ticket }) => ({
    ...(outlet
      ? {
          relay: outlet.relay,
          'tcp-outlet': {
            to: outlet.to.join(':'),
            allow: outlet.allow,
            ...(outlet.tls === undefined ? {} : { tls: outlet.tls }),
          },
        }
      : {}),
    ...(inlet
      ? {
          'tcp-inlet': {
            from: inlet.from.join(':'),
            via: inlet.via,
            allow: inlet.allow,
            ...(inlet.tls === undefined ? {} : { tls: inlet.tls }),
          },
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
  const outlet = config['tcp-outlet'];
  const inlet = config['tcp-inlet'];
  assert.ok(outlet || inlet, 'an outlet or an inlet');
  if (outlet) {
    assert.ok(config.relay, 'an outlet has a relay');
    assert.ok(parseHostPort(outlet.to).ok, `outlet target ${outlet.to}`);
  }
  if (inlet) assert.ok(parseHostPort(inlet.from, true).ok, `inlet address ${inlet.from}`);
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
