// The two test suites, for the mocha configurations at the root of the repository.
//
// unit: what runs in seconds with Node.js alone, in this process: pure functions, in-memory streams,
// and controllers and nodes started in-process on loopback. No program is started (the guard in
// test-no-processes.cjs fails any test that tries), nothing needs a build of dist/.
// integration: everything else, which starts real programs: the bundled CLI, bash, shellcheck,
// python3, psql and PostgreSQL, docker-compose, curl. A new test file lands here unless it is listed
// below, so nothing is left out of `npm test` and the unit suite stays fast by choice.
const { readdirSync } = require('node:fs');
const { join } = require('node:path');

const unitFiles = [
  'test/cli/controller-holdings.test.ts',
  'test/cli/controller-sealing-key.test.ts',
  'test/cli/member-tables.test.ts',
  'test/cli/node-show.test.ts',
  'test/cli/restore-next-steps.test.ts',
  'test/cli/retire-matching.test.ts',
  'test/cli/status-listen.test.ts',
  'test/compile/control-plane-stack-guide.test.ts',
  'test/compile/control-plane-stack.test.ts',
  'test/compile/generated-types.test.ts',
  'test/compile/golden.test.ts',
  'test/compile/k8s-api-check.test.ts',
  'test/compile/k8s-compiled.test.ts',
  'test/compile/k8s.test.ts',
  'test/compile/limits.test.ts',
  'test/compile/node-config.test.ts',
  'test/compile/control-plane.test.ts',
  'test/compile/control-plane-k8s.test.ts',
  'test/compile/open-manifests.test.ts',
  'test/compile/outlet-replicas.test.ts',
  'test/compile/rules.test.ts',
  'test/compile/stack.test.ts',
  'test/compile/template-audit.test.ts',
  'test/controller/audit-budget.test.ts',
  'test/controller/audit-reports.test.ts',
  'test/controller/audit-trail.test.ts',
  'test/controller/backup-archive.test.ts',
  'test/controller/backup-authentication.test.ts',
  'test/controller/console-chain.test.ts',
  'test/controller/console-listener.test.ts',
  'test/controller/console-problems.test.ts',
  'test/controller/console-live.test.ts',
  'test/controller/console-tls.test.ts',
  'test/controller/console.test.ts',
  'test/controller/member-bounds.test.ts',
  'test/controller/member-counts.test.ts',
  'test/controller/metrics.test.ts',
  'test/controller/migrations-expand.test.ts',
  'test/controller/reissue-limits.test.ts',
  'test/controller/revocation-proof.test.ts',
  'test/controller/relay-grants.test.ts',
  'test/controller/revocation.test.ts',
  'test/controller/store-newer-schema.test.ts',
  'test/controller/store.test.ts',
  'test/controller/silent-member.test.ts',
  'test/controller/store-refusals.test.ts',
  'test/controller/store-retirement.test.ts',
  'test/controller/store-url.test.ts',
  'test/controller/tickets.test.ts',
  'test/controller/tls-key.test.ts',
  'test/docs/named-tests.test.ts',
  'test/docs/readme.test.ts',
  'test/docs/shell-blocks.test.ts',
  'test/docs/troubleshooting.test.ts',
  'test/house/source-shape.test.ts',
  'test/node/audit-outbox.test.ts',
  'test/node/backoff.test.ts',
  'test/node/client-tls.test.ts',
  'test/node/config-portals.test.ts',
  'test/node/config.test.ts',
  'test/node/direct-dialer.test.ts',
  'test/node/direct-listener.test.ts',
  'test/node/home-claim.test.ts',
  'test/node/inlet-refusal.test.ts',
  'test/node/logger.test.ts',
  'test/node/outlet-bounds.test.ts',
  'test/node/outlet-dials.test.ts',
  'test/node/portal.test.ts',
  'test/node/portal-reporter.test.ts',
  'test/node/relay-links.test.ts',
  'test/node/renewal-retry.test.ts',
  'test/node/reload.test.ts',
  'test/node/revocation-check.test.ts',
  'test/node/revocation-cut.test.ts',
  'test/node/revocation-list.test.ts',
  'test/node/session-life.test.ts',
  'test/node/several-portals.test.ts',
  'test/node/show.test.ts',
  'test/node/standing-channel.test.ts',
  'test/node/ticket-fit.test.ts',
  'test/node/tls-portal.test.ts',
  'test/node/warm-streams.test.ts',
  'test/pki/authority.test.ts',
  'test/pki/requests.test.ts',
  'test/relay/pairing.test.ts',
  'test/relay/relay-node.test.ts',
  'test/relay/relay-pools.test.ts',
  'test/relay/relay-watch-bounds.test.ts',
  'test/relay/relay.test.ts',
  'test/scripts/bench-report.test.ts',
  'test/scripts/bench-settings.test.ts',
  'test/scripts/chaos-verdicts.test.ts',
  'test/scripts/fleet-verdicts.test.ts',
  'test/scripts/engines.test.ts',
  'test/scripts/soak-selection.test.ts',
  'test/scripts/lane-memory.test.ts',
  'test/scripts/test-lanes.test.ts',
  'test/service/systemd-unit.test.ts',
  'test/shared/address.test.ts',
  'test/shared/audit-verify.test.ts',
  'test/shared/bounded-log.test.ts',
  'test/shared/counter-map.test.ts',
  'test/shared/duration.test.ts',
  'test/shared/error-codes.test.ts',
  'test/shared/graceful-stop.test.ts',
  'test/shared/heap-tuning.test.ts',
  'test/shared/key-file-permissions.test.ts',
  'test/shared/listen.test.ts',
  'test/shared/memory-reducer.test.ts',
  'test/shared/metrics-table.test.ts',
  'test/shared/policy.test.ts',
  'test/shared/read-buffer-sweep.test.ts',
  'test/shared/secret-compare.test.ts',
  'test/shared/socket-tuning.test.ts',
  'test/shared/status-server.test.ts',
  'test/shared/yaml-source.test.ts',
  'test/wire/admission.test.ts',
  'test/wire/control-channel-refusals.test.ts',
  'test/wire/control-channel.test.ts',
  'test/wire/e2e-tls-refusals.test.ts',
  'test/wire/e2e-verdicts.test.ts',
  'test/wire/json-lines.test.ts',
  'test/wire/mux-stream-state.test.ts',
  'test/wire/mux.test.ts',
  'test/wire/peer-guard.test.ts',
  'test/wire/protocol.test.ts',
  'test/wire/session-credentials.test.ts',
  'test/wire/pump.test.ts',
  'test/wire/splice.test.ts',
  'test/wire/tls-contexts.test.ts',
  'test/wire/tunnel-streams.test.ts',
];
/**
 * Files that take a fixed, machine-wide resource (the README's commands as written listen on the
 * documented ports 4000 and 23345): scripts/test-run.mjs runs them one after another in one lane.
 */
const serialFiles = ['test/e2e/quick-start.test.ts', 'test/e2e/operate-walkthrough.test.ts'];

/** Folders whose every test file is a unit test. */
const unitFolders = ['test/fuzz/'];

/** Every test file under test/, sorted, as paths relative to the repository. */
function allTestFiles() {
  const files = readdirSync(join(process.cwd(), 'test'), { recursive: true })
    .map((path) => join('test', String(path)))
    .filter((path) => path.endsWith('.test.ts'))
    .sort();
  return checkListed(files);
}

/** A listed unit file that was renamed or removed would silently leave the suite: say so instead. */
function checkListed(files) {
  const missing = unitFiles.filter((path) => !files.includes(path));
  if (missing.length > 0)
    throw new Error(`scripts/test-suites.cjs lists unit test files that do not exist: ${missing.join(', ')}`);
  return files;
}

function isUnit(path) {
  return unitFiles.includes(path) || unitFolders.some((folder) => path.startsWith(folder));
}

const shared = {
  'node-option': ['import=tsx'],
  timeout: 30000,
  // Its closing line ("tests: N passed, N failed") is the one CI reads.
  reporter: './test/support/summary-reporter.cjs',
};

/** Unit tests: no build, and no program may be started. */
function unitConfig() {
  return { ...shared, spec: allTestFiles().filter(isUnit), require: ['./scripts/test-no-processes.cjs'] };
}

/** Integration tests: they run the bundled CLI, so it is built fresh first. */
function integrationConfig() {
  return {
    ...shared,
    spec: allTestFiles().filter((path) => !isUnit(path)),
    require: ['./test/support/build-bundle.ts'],
  };
}

/** Both in one run (one closing line for CI): the unit tests first, so a broken basic fails early in the log. */
function allConfig() {
  const files = allTestFiles();
  return {
    ...shared,
    spec: [...files.filter(isUnit), ...files.filter((path) => !isUnit(path))],
    require: ['./test/support/build-bundle.ts'],
  };
}

module.exports = { unitConfig, integrationConfig, allConfig, allTestFiles, isUnit, serialFiles };
