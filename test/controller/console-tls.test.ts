/** The console off loopback: HTTPS with the controller's own certificate, and a Secure cookie. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { request } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { StoredIdentity } from '../../src/node/identity-store.ts';
import { callController } from '../../src/wire/control-channel.ts';
import { createWorld, type World } from '../support/portal-world.ts';

const as = (identity: StoredIdentity) => ({ key: identity.privateKey, certificate: identity.certificate });

/** One HTTPS request that trusts whatever certificate it meets, and tells its fingerprint. */
function fetchOverTls(
  url: string,
  options: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; fingerprint: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: options.method ?? 'GET', headers: options.headers, rejectUnauthorized: false });
    sent.on('response', (response) => {
      const peer = (response.socket as TLSSocket).getPeerX509Certificate();
      response.resume();
      resolve({
        status: response.statusCode ?? 0,
        headers: response.headers,
        fingerprint: peer ? createHash('sha256').update(peer.raw).digest('hex') : '',
      });
    });
    sent.on('error', reject);
    sent.end(options.body);
  });
}

describe('console off loopback', () => {
  let world: World;

  before(async () => {
    world = await createWorld({ console: { host: '0.0.0.0', port: 0 } });
  });
  after(() => world.close());

  it('speaks HTTPS with the controller certificate, and its session cookie is Secure', async () => {
    const url = world.controller.console!.url;
    assert.match(url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const { link } = await callController(world.admin.record, 'console-link', {}, as(world.admin));
    const page = await fetchOverTls(link);
    assert.equal(page.status, 200);
    assert.equal(page.fingerprint, world.controller.fingerprint);
    const secret = link.split('/').at(-1)!;
    const signedIn = await fetchOverTls(`${url}/sign-in`, {
      method: 'POST',
      body: new URLSearchParams({ secret }).toString(),
      headers: { origin: url, 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(signedIn.status, 303);
    const cookie = String(signedIn.headers['set-cookie'] ?? '');
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /Secure/);
  });
});
