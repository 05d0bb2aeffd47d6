/**
 * How the controller's metrics read what its member service is told of each answered request, and
 * what they read from the store, the relays and the tally when scraped.
 */
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { registerControllerMetrics } from '../../src/controller/metrics.ts';
import { OperationsTally } from '../../src/shared/operations-tally.ts';
import type { AnsweredRequest } from '../../src/wire/service-connection.ts';
import { parseSamples, valueOf } from '../support/scrape.ts';

const identity = (relayNode: boolean) => ({
  identity: { projectId: 'p1', nodeId: 'n1', attributes: [], relays: [], admin: false, tls: false, relayNode },
});

describe('controller metrics', () => {
  const registry = new Registry();
  const tally = new OperationsTally();
  const observe = registerControllerMetrics(registry, {
    members: () => Promise.resolve({ admin: 2, node: 5, relay: 1, revoked: 3 }),
    relays: () => ({ everywhere: 1, announced: 3 }),
    figures: () => ({
      members: 7,
      membersRefused: 4,
      anonymousRefused: 9,
      directPaths: 2,
      reported: { node: 6, relay: 2 },
    }),
    tally,
  });
  const answered = (op: string, answer?: object, code?: AnsweredRequest['code']): AnsweredRequest => ({
    op,
    code,
    seconds: 0.003,
    answer: code === undefined ? (answer ?? {}) : undefined,
  });

  it('counts enrollments by kind, renewals, re-issues, tickets, and refusals by reason, as answered', async () => {
    observe(answered('admin-enroll', identity(false)));
    observe(answered('enroll', identity(false)));
    observe(answered('enroll', identity(true)));
    observe(answered('enroll', undefined, 'TICKET_CONSUMED'));
    observe(answered('renew', identity(false)));
    observe(answered('renew', identity(false)));
    observe(answered('reissue', identity(false)));
    observe(answered('reissue', undefined, 'REISSUE_REFUSED'));
    observe(answered('ticket', { ticket: 'pt1' }));
    observe(answered('unknown', undefined, 'UNKNOWN_OPERATION'));
    tally.revocationsPushed(3);
    tally.auditRecordsWritten();
    const samples = parseSamples(await registry.metrics());
    const value = (name: string, labels: Record<string, string> = {}) => valueOf(samples, name, labels);
    assert.equal(value('portal_controller_enrollments_total', { kind: 'admin' }), 1);
    assert.equal(value('portal_controller_enrollments_total', { kind: 'node' }), 1);
    assert.equal(value('portal_controller_enrollments_total', { kind: 'relay' }), 1);
    assert.equal(value('portal_controller_renewals_total'), 2);
    assert.equal(value('portal_controller_reissues_total'), 1);
    assert.equal(value('portal_controller_tickets_issued_total'), 1);
    assert.equal(value('portal_controller_refusals_total', { operation: 'enroll', reason: 'TICKET_CONSUMED' }), 1);
    assert.equal(value('portal_controller_refusals_total', { operation: 'unknown', reason: 'UNKNOWN_OPERATION' }), 1);
    assert.equal(value('portal_controller_request_duration_seconds_count', { operation: 'enroll' }), 3);
    assert.equal(value('portal_controller_request_duration_seconds_bucket', { operation: 'renew', le: '0.005' }), 2);
    assert.equal(value('portal_controller_request_duration_seconds_bucket', { operation: 'renew', le: '0.0025' }), 0);
    assert.equal(value('portal_revocations_pushed_total'), 3);
    assert.equal(value('portal_audit_records_written_total'), 1);
    assert.equal(value('portal_audit_records_pending'), 0);
  });

  it('reads members, relays, connections and admission refusals when scraped', async () => {
    const samples = parseSamples(await registry.metrics());
    const value = (name: string, labels: Record<string, string> = {}) => valueOf(samples, name, labels);
    assert.equal(value('portal_controller_members', { kind: 'node' }), 5);
    assert.equal(value('portal_controller_members', { kind: 'admin' }), 2);
    assert.equal(value('portal_controller_members', { kind: 'revoked' }), 3);
    assert.equal(value('portal_controller_relays', { kind: 'embedded' }), 1);
    assert.equal(value('portal_controller_relays', { kind: 'node' }), 3);
    assert.equal(value('portal_controller_direct_paths'), 2);
    assert.equal(value('portal_controller_reported_connections', { kind: 'node' }), 6);
    assert.equal(value('portal_controller_reported_connections', { kind: 'relay' }), 2);
    assert.equal(value('portal_controller_member_connections'), 7);
    assert.equal(value('portal_controller_admission_refusals_total', { reason: 'member_connections' }), 4);
    assert.equal(value('portal_controller_admission_refusals_total', { reason: 'anonymous_requests' }), 9);
  });
});
