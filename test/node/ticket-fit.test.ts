import assert from 'node:assert/strict';
import { identityMisfit } from '../../src/node/ticket-fit.ts';
import type { NodeConfig } from '../../src/shared/types/node-config.ts';

const inlet: NodeConfig = { 'tcp-inlet': { from: '127.0.0.1:0', via: 'db', allow: 'db-outlet' } };
const tlsInlet: NodeConfig = { 'tcp-inlet': { from: '127.0.0.1:0', via: 'db', allow: 'db-outlet', tls: true } };
const outlet: NodeConfig = { relay: 'db', 'tcp-outlet': { to: '127.0.0.1:5432', allow: 'db-inlet' } };
const ticket = { kind: 'ticket' } as const;
const enrolled = (ticketGiven: boolean) =>
  ({ kind: 'enrolled', nodeId: 'n-1', projectId: 'p-1', ticketGiven }) as const;

describe('a ticket or an enrolled identity against the node configuration', () => {
  it('accepts the grants that fit', () => {
    assert.equal(identityMisfit(inlet, { relays: [], tls: false, relayNode: false }, ticket), undefined);
    assert.equal(identityMisfit(tlsInlet, { relays: [], tls: true, relayNode: false }, ticket), undefined);
    assert.equal(identityMisfit(outlet, { relays: ['db'], tls: false, relayNode: false }, ticket), undefined);
  });

  it("refuses an outlet's ticket for an inlet, before it is used", () => {
    const misfit = identityMisfit(inlet, { relays: ['db'], tls: false, relayNode: false }, ticket);
    assert.equal(misfit?.code, 'WRONG_TICKET');
    assert.equal(
      misfit?.message,
      'this ticket was issued for an outlet (it grants the relay "db"), but this configuration has no tcp-outlet; ' +
        'it was not used',
    );
    assert.match(misfit?.hint ?? '', /give this inlet its own ticket/);
  });

  it("refuses an inlet's ticket for an outlet, naming the relay to grant", () => {
    const misfit = identityMisfit(outlet, { relays: [], tls: false, relayNode: false }, ticket);
    assert.equal(misfit?.code, 'RELAY_NOT_GRANTED');
    assert.equal(
      misfit?.message,
      'this ticket was issued for an inlet (it grants no relay), ' +
        'but this configuration has an outlet for the relay "db"; it was not used',
    );
    assert.equal(misfit?.hint, "issue the outlet's ticket with --relay db");
  });

  it('refuses a ticket for another relay, a relay node ticket, and a TLS inlet without TLS', () => {
    assert.match(
      identityMisfit(outlet, { relays: ['cache'], tls: false, relayNode: false }, ticket)?.message ?? '',
      /grants the relay "cache", but this configuration's outlet is for "db"/,
    );
    assert.equal(identityMisfit(inlet, { relays: [], tls: false, relayNode: true }, ticket)?.code, 'WRONG_TICKET');
    assert.equal(
      identityMisfit(tlsInlet, { relays: [], tls: false, relayNode: false }, ticket)?.code,
      'TLS_NOT_GRANTED',
    );
  });

  it('blames the enrolled identity, not a new ticket, and says the ticket was not used', () => {
    const misfit = identityMisfit(outlet, { relays: [], tls: false, relayNode: false }, enrolled(true));
    assert.equal(
      misfit?.message,
      'this home is enrolled already as node n-1 of project p-1, whose identity was enrolled for an inlet ' +
        '(it grants no relay), but this configuration has an outlet for the relay "db"; ' +
        'the ticket given was not used, because an enrolled home keeps its identity',
    );
    assert.equal(
      misfit?.hint,
      'an administrator of the project runs portal project grant n-1 --relay db, then start the node again ' +
        '(the node fetches the grant from the controller); ' +
        'or to enroll with the new ticket, run portal reset --yes or use another PORTAL_HOME; ' +
        'or remove tcp-outlet from the configuration',
    );
    assert.doesNotMatch(
      identityMisfit(outlet, { relays: [], tls: false, relayNode: false }, enrolled(false))?.message ?? '',
      /ticket/,
    );
  });

  it('names the grant command for every relay name the enrolled identity lacks, and what to do after it', () => {
    const named: NodeConfig = {
      'tcp-outlets': {
        db: { to: '127.0.0.1:5432', allow: 'db-inlet' },
        cache: { to: '127.0.0.1:6379', allow: 'db-inlet' },
        web: { to: '127.0.0.1:80', allow: 'db-inlet', relay: 'web-relay' },
      },
    };
    const misfit = identityMisfit(
      named,
      { relays: ['db'], tls: false, relayNode: false },
      { ...enrolled(false), retry: 'reload again' },
    );
    assert.equal(misfit?.code, 'RELAY_NOT_GRANTED');
    assert.equal(
      misfit?.hint,
      'an administrator of the project runs portal project grant n-1 --relay cache --relay web-relay, ' +
        'then reload again (the node fetches the grant from the controller); ' +
        'or give each outlet a relay its identity grants ("db"), or remove it',
    );
    // A misfit no grant mends names no grant command.
    const tls = identityMisfit(tlsInlet, { relays: [], tls: false, relayNode: false }, enrolled(false));
    assert.doesNotMatch(tls?.hint ?? '', /portal project grant/);
  });

  it('lets an enrolled outlet identity serve an inlet only', () => {
    assert.equal(identityMisfit(inlet, { relays: ['db'], tls: false, relayNode: false }, enrolled(false)), undefined);
  });
});
