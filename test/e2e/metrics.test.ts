/**
 * Metrics and health of the controller and a relay node, as real processes serve them: a controller
 * with no relay of its own, a relay node, an outlet and an inlet enrolled through tickets, and traffic
 * through the relay. Each counter is scraped before and after what should move it; /healthz of the
 * relay turns 503 with the reason while its controller is gone, and back to 200 once it returns.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedControllerRuntime } from '../../src/cli/home.ts';
import { startEchoPortal, type EchoPortal } from '../support/echo-portal.ts';
import { portal } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { startRelay, type RelayProcess } from '../support/relay-processes.ts';
import { healthOf, healthWhen, scrape, valueOf, type Sample } from '../support/scrape.ts';
import { until } from '../support/in-process.ts';
import { roundTrip } from '../support/tcp.ts';
import { removeAdminHome } from '../support/admin-home.ts';

const statusLine = /relay status server on http:\/\/(\S+) \(GET \/metrics, GET \/healthz\)/;

describe('end to end: the controller and a relay node serve metrics and health', function () {
  this.timeout(120_000);
  let project: ProjectProcesses;
  let relay: RelayProcess;
  let relayStatus: string;
  let portalUnderTest: EchoPortal | undefined;
  let controllerBefore: Sample[];

  const controllerStatus = () => {
    assert.ok(project.controller.status, 'the controller names its status server in its ready line');
    return project.controller.status;
  };

  before(async () => {
    project = await startProject({ controllerFlags: ['--no-relay'] });
    controllerBefore = await scrape(controllerStatus());
    relay = await startRelay(project, 'relay-a');
    relayStatus = (statusLine.exec(await relay.process.waitFor(statusLine)) ?? [])[1] ?? '';
  });

  after(async () => {
    await portalUnderTest?.echo.close();
    await relay?.process.stop();
    await project?.close();
  });

  it('answers /healthz 200: the controller, and the relay once the controller holds its announcement', async () => {
    assert.deepEqual(await healthOf(controllerStatus()), {
      status: 200,
      body: { status: 'serving', process: 'controller' },
    });
    assert.match(relayStatus, /^127\.0\.0\.1:[0-9]+$/, 'loopback by default');
    const health = await healthWhen(relayStatus, 200);
    assert.deepEqual(health.body, { status: 'serving', process: 'relay' });
    assert.equal(valueOf(await scrape(relayStatus), 'portal_relay_controller_connected'), 1);
  });

  it('counts enrollments, members, relays and tickets on the controller', async () => {
    portalUnderTest = await startEchoPortal(project, {}, { direct: false });
    const after = await scrape(controllerStatus());
    const moved = (name: string, labels: Record<string, string> = {}) =>
      valueOf(after, name, labels) - valueOf(controllerBefore, name, labels);
    assert.equal(valueOf(controllerBefore, 'portal_controller_members', { kind: 'admin' }), 1);
    assert.equal(moved('portal_controller_members', { kind: 'node' }), 2, 'the outlet and the inlet');
    assert.equal(moved('portal_controller_members', { kind: 'relay' }), 1);
    assert.equal(moved('portal_controller_enrollments_total', { kind: 'node' }), 2);
    assert.equal(moved('portal_controller_enrollments_total', { kind: 'relay' }), 1);
    assert.equal(moved('portal_controller_tickets_issued_total'), 3);
    assert.equal(valueOf(after, 'portal_controller_relays', { kind: 'node' }), 1);
    assert.equal(valueOf(after, 'portal_controller_relays', { kind: 'embedded' }), 0, 'started with --no-relay');
    assert.equal(moved('portal_controller_request_duration_seconds_count', { operation: 'enroll' }), 3);
    assert.ok(valueOf(after, 'portal_controller_member_connections') >= 3, 'the relay and both nodes hold one');
    assert.equal(valueOf(after, 'portal_revocations_pushed_total'), 0, 'registered, fed by revocation');
  });

  it('counts splices and the bytes spliced each way on the relay while traffic flows', async () => {
    assert.ok(portalUnderTest);
    const before = await scrape(relayStatus);
    const payload = Buffer.alloc(4 * 1024 * 1024, 7);
    for (let i = 0; i < 3; i += 1) {
      const echoed = await roundTrip(portalUnderTest.port, payload);
      assert.equal(echoed.length, payload.length);
    }
    const after = await scrape(relayStatus);
    const moved = (name: string, labels: Record<string, string> = {}) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    const sent = 3 * payload.length;
    const toOutlet = moved('portal_relay_spliced_bytes_total', { direction: 'inlet_to_outlet' });
    const toInlet = moved('portal_relay_spliced_bytes_total', { direction: 'outlet_to_inlet' });
    console.log(`      ${sent} bytes each way through the portal; the relay counted ${toOutlet} and ${toInlet}`);
    // End-to-end TLS and the multiplexer add a little; nothing else crosses the relay meanwhile.
    for (const counted of [toOutlet, toInlet]) assert.ok(counted >= sent && counted < sent * 1.05, `${counted}`);
    assert.ok(valueOf(after, 'portal_relay_splices_total') >= 1);
    assert.ok(valueOf(after, 'portal_relay_splices_open') >= 1, 'the session stays up between clients');
    assert.ok(valueOf(after, 'portal_relay_registrations') >= 1, 'the outlet registered');
    assert.ok(valueOf(after, 'portal_relay_request_duration_seconds_count', { operation: 'register' }) >= 1);
    assert.ok(valueOf(after, 'portal_relay_request_duration_seconds_count', { operation: 'connect' }) >= 1);
    // The session the relay carries, as the members report it to the controller at their next heartbeat.
    await until(
      async () => {
        const reported = await scrape(controllerStatus());
        return valueOf(reported, 'portal_controller_reported_connections', { kind: 'node' }) >= 2 &&
          valueOf(reported, 'portal_controller_reported_connections', { kind: 'relay' }) >= 1
          ? true
          : undefined;
      },
      'the nodes and the relay reporting what they carry',
      15_000,
    );
  });

  it('counts a refusal by operation and reason', async () => {
    const home = join(project.dir, 'late-admin');
    const used = await portal(home, [
      'enroll',
      '--controller',
      project.controller.listening,
      '--code',
      project.controller.adminCode,
    ]);
    assert.notEqual(used.code, 0, 'the admin code was used already');
    const after = await scrape(controllerStatus());
    const refused = { operation: 'admin-enroll', reason: 'ADMIN_CODE_INVALID' };
    assert.equal(valueOf(after, 'portal_controller_refusals_total', refused), 1);
  });

  it('answers 503 on the relay, with the reason, while its controller is gone, and 200 once it is back', async () => {
    await project.killController();
    const gone = await healthWhen(relayStatus, 503);
    assert.equal(gone.body.status, 'unavailable');
    assert.match(gone.body.reason ?? '', /connection to the controller \S+ is down/);
    assert.equal(valueOf(await scrape(relayStatus), 'portal_relay_controller_connected'), 0);
    assert.ok(portalUnderTest);
    const echoed = await roundTrip(portalUnderTest.port, Buffer.from('still carried'));
    assert.equal(echoed.toString(), 'still carried', 'the relay carries on without its controller');
    await project.startController();
    assert.equal((await healthWhen(relayStatus, 200, 60_000)).body.status, 'serving');
  });
});

describe('end to end: the embedded controller of portal enroll serves its status', function () {
  this.timeout(60_000);
  let home: string;

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'portal-embedded-status-'));
  });

  after(() => removeAdminHome(home));

  it('writes its status address to its runtime file, on loopback, and counts its administrator', async () => {
    const enrolled = await portal(home, ['enroll']);
    assert.equal(enrolled.code, 0, enrolled.stderr);
    const runtime = JSON.parse(await readFile(embeddedControllerRuntime(home), 'utf8')) as { status?: string };
    assert.match(runtime.status ?? '', /^127\.0\.0\.1:[0-9]+$/);
    assert.equal((await healthOf(runtime.status ?? '')).status, 200);
    const samples = await scrape(runtime.status ?? '');
    assert.equal(valueOf(samples, 'portal_controller_members', { kind: 'admin' }), 1);
    assert.equal(valueOf(samples, 'portal_controller_enrollments_total', { kind: 'admin' }), 1);
    assert.equal(valueOf(samples, 'portal_relay_splices_open'), 0, 'its embedded relay is served beside it');
  });
});
