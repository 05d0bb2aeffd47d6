import assert from 'node:assert/strict';
import validateNodeConfig from '../../src/shared/validators/node-config.cjs';
import { containerInletConfig, outletConfig, stackInletConfig } from '../../src/compile/node-config.ts';
import { resolveUseCase } from '../../src/compile/model.ts';
import { parseNodeConfig } from '../../src/node/config.ts';
import type { NodeConfig } from '../../src/shared/types/node-config.ts';
import { product } from '../../src/shared/product.ts';
import { allUseCases, artifactText, containerUseCases, loadManifest } from '../support/usecases.ts';

/** The use cases of the spec, with its single portal each. */
const specUseCases = ['bedrock', 'postgres', 'warehouse', 'webhook'] as const;

const config = (usecase: string, role: 'outlet' | 'inlet') =>
  JSON.parse(artifactText(usecase, `${role}.json`)) as NodeConfig;

describe('node configurations (spec 2.2)', () => {
  for (const usecase of allUseCases) {
    for (const role of ['outlet', 'inlet'] as const) {
      it(`${usecase} ${role}.json conforms to the node configuration schema`, () => {
        assert.equal(validateNodeConfig(config(usecase, role)), true, JSON.stringify(validateNodeConfig.errors));
      });
    }
  }

  it('has the outlets register their relay and forward to the spec targets', () => {
    assert.deepEqual(config('webhook', 'outlet'), {
      'http-server-port': 23345,
      relay: 'webhook',
      'tcp-outlet': { allow: 'webhook-inlet', to: 'localhost:7777' },
    });
    assert.equal(config('warehouse', 'outlet')['tcp-outlet']?.to, '$REDSHIFT_ENDPOINT');
    assert.equal(config('postgres', 'outlet')['tcp-outlet']?.to, '$POSTGRES_ENDPOINT:5432');
    assert.deepEqual(config('bedrock', 'outlet')['tcp-outlet'], {
      allow: 'bedrock-inlet',
      to: '$BEDROCK_RUNTIME_ENDPOINT:443',
      tls: true,
    });
  });

  it(
    'has inlet.json listen on loopback at the spec ports, its direct path on loopback too, via the outlet relay: ' +
      'a host process opens nothing to other machines unasked',
    () => {
      const inletOf = (usecase: string) => config(usecase, 'inlet')['tcp-inlet'];
      const inlets = Object.fromEntries(specUseCases.map((usecase) => [usecase, inletOf(usecase)]));
      assert.deepEqual(inlets, {
        bedrock: { allow: 'bedrock-outlet', direct: true, from: '127.0.0.1:443', tls: true, via: 'bedrock' },
        postgres: { allow: 'postgres-outlet', direct: true, from: '127.0.0.1:15432', via: 'postgres' },
        warehouse: { allow: 'warehouse-outlet', direct: true, from: '127.0.0.1:15439', via: 'warehouse' },
        webhook: { allow: 'webhook-outlet', direct: true, from: '127.0.0.1:17777', via: 'webhook' },
      });
      for (const usecase of allUseCases) {
        const parsed = parseNodeConfig(`${usecase}/inlet.json`, artifactText(usecase, 'inlet.json'));
        const inlets = parsed['tcp-inlet'] ? [parsed['tcp-inlet']] : Object.values(parsed['tcp-inlets'] ?? {});
        for (const inlet of inlets) assert.match(inlet.from, /^127\.0\.0\.1:\d+$/, usecase);
      }
    },
  );

  it('has the stack inlets listen on 0.0.0.0, behind the security group, with the direct path on 0.0.0.0:4200', () => {
    for (const usecase of specUseCases) {
      const inlet = stackInletConfig(resolveUseCase(loadManifest(usecase)))['tcp-inlet'];
      assert.equal(inlet?.direct, `0.0.0.0:${product.directPort}`, usecase);
      assert.match(String(inlet?.from), /^0\.0\.0\.0:\d+$/, usecase);
    }
    assert.equal(product.directPort, 4200, "the port the stacks' OutletCidr rule opens");
  });

  it("turns the container inlet's direct path off, and refuses a direct value that is not an address", () => {
    for (const usecase of containerUseCases) {
      assert.equal(containerInletConfig(resolveUseCase(loadManifest(usecase)))['tcp-inlet']?.direct, false, usecase);
    }
    assert.equal(
      validateNodeConfig({ 'tcp-inlet': { from: '127.0.0.1:1', via: 'a', allow: 'b', direct: 'everywhere' } }),
      false,
    );
    assert.equal(
      validateNodeConfig({ 'tcp-inlet': { from: '127.0.0.1:1', via: 'a', allow: 'b', direct: 4200 } }),
      false,
    );
  });

  it('writes tls only where the spec has it, and the status port 23345 everywhere', () => {
    for (const usecase of specUseCases) {
      for (const role of ['outlet', 'inlet'] as const) {
        const node = config(usecase, role);
        assert.equal(node['http-server-port'], 23345);
        const section = node['tcp-outlet'] ?? node['tcp-inlet'];
        assert.equal(section !== undefined && 'tls' in section, usecase === 'bedrock', `${usecase} ${role}`);
      }
    }
  });

  it('gives several portals the plural forms by portal name, each direct path on a port of its own', () => {
    assert.deepEqual(config('shop', 'outlet'), {
      'http-server-port': 23345,
      'tcp-outlets': {
        api: { allow: 'shop-inlet', to: 'localhost:8080' },
        cache: { allow: 'shop-inlet', tls: true, to: '$CACHE_ENDPOINT:6379' },
        'orders-db': { allow: 'shop-inlet', to: '$ORDERS_DB_ENDPOINT:5432' },
      },
    });
    assert.deepEqual(config('shop', 'inlet'), {
      'http-server-port': 23345,
      'tcp-inlets': {
        api: { allow: 'shop-outlet', direct: true, from: '127.0.0.1:18080' },
        cache: { allow: 'shop-outlet', direct: true, from: '127.0.0.1:16379' },
        'orders-db': { allow: 'shop-outlet', direct: true, from: '127.0.0.1:15432' },
      },
    });
    const stack = stackInletConfig(resolveUseCase(loadManifest('shop')));
    assert.deepEqual(
      Object.values(stack['tcp-inlets'] ?? {}).map((inlet) => inlet.direct),
      ['0.0.0.0:4200', '0.0.0.0:4201', '0.0.0.0:4202'],
    );
    const container = containerInletConfig(resolveUseCase(loadManifest('shop')));
    assert.deepEqual(
      Object.values(container['tcp-inlets'] ?? {}).map((inlet) => [inlet.from, inlet.direct]),
      [
        ['127.0.0.1:15432', false],
        ['127.0.0.1:16379', false],
        ['127.0.0.1:18080', false],
      ],
    );
  });

  it('writes relay and via only where they differ from the portal name', () => {
    const manifest = structuredClone(loadManifest('shop'));
    const [first] = manifest.portals ?? [];
    if (first) {
      first.outlet.relay = 'orders';
      first.inlet.via = 'orders';
    }
    const useCase = resolveUseCase(manifest);
    assert.deepEqual(outletConfig(useCase)['tcp-outlets']?.['orders-db']?.relay, 'orders');
    assert.deepEqual(stackInletConfig(useCase)['tcp-inlets']?.['orders-db']?.via, 'orders');
    assert.equal(stackInletConfig(useCase)['tcp-inlets']?.cache?.via, undefined);
    assert.deepEqual(useCase.tickets.outlet.relays, ['orders', 'cache', 'api']);
  });

  it('is serialised with sorted keys, so golden files change only with behaviour', () => {
    const text = artifactText('bedrock', 'outlet.json');
    const parsed = JSON.parse(text) as NodeConfig;
    assert.deepEqual(Object.keys(parsed), ['http-server-port', 'relay', 'tcp-outlet']);
    assert.deepEqual(Object.keys(parsed['tcp-outlet'] ?? {}), ['allow', 'tls', 'to']);
  });

  it('is refused by the schema when a key is unknown or a port is out of range', () => {
    assert.equal(
      validateNodeConfig({ 'tcp-inlet': { from: '127.0.0.1:1', via: 'a', allow: 'b', colour: 'red' } }),
      false,
    );
    assert.equal(validateNodeConfig({ 'http-server-port': 70000 }), false);
  });
});
