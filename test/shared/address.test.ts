import assert from 'node:assert/strict';
import { isLoopbackHost, socketHost } from '../../src/shared/address.ts';

describe('loopback hosts', () => {
  it('knows the names and addresses only this machine reaches', () => {
    for (const host of ['localhost', 'LOCALHOST.', 'db.localhost', '127.0.0.1', '127.1.2.3', '[::1]', '::1'])
      assert.equal(isLoopbackHost(host), true, host);
    for (const host of [
      '0.0.0.0',
      '10.0.0.5',
      '192.0.2.2',
      'controller.example.net',
      'localhost.example.net',
      '[fd00::2]',
      '128.0.0.1',
    ])
      assert.equal(isLoopbackHost(host), false, host);
  });
});

describe('hosts as sockets take them', () => {
  it('drops the brackets of an IPv6 address, and leaves names and IPv4 addresses alone', () => {
    assert.equal(socketHost('[::1]'), '::1');
    assert.equal(socketHost('[2001:db8::7]'), '2001:db8::7');
    assert.equal(socketHost('db.internal'), 'db.internal');
    assert.equal(socketHost('10.0.0.5'), '10.0.0.5');
  });
});
