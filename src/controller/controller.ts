/**
 * A running controller: its data directory (TLS certificate, sealed TLS key, store), the key that seals
 * the TLS key and the project CA keys in the store (kept elsewhere: see src/shared/sealing-key.ts), the
 * service and the listening server. Used by `portal controller start` and by tests.
 */
import type { X509Certificate } from 'node:crypto';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { Registry } from 'prom-client';
import { collectProcessMetrics } from '../shared/process-metrics.ts';
import { fingerprintOf } from '../pki/authority.ts';
import type { PeerIdentity } from '../pki/identity.ts';
import { UnsealError, seal, unseal } from '../pki/seal.ts';
import { RuntimeFailure } from '../shared/errors.ts';
import type { SharedDataPlane } from '../wire/portal-port.ts';
import { defaultNetworkDomain } from '../shared/product.ts';
import {
  hasSealedServerKey,
  loadServerCertificate,
  serverCertificateFiles,
  type ServerCertificate,
} from '../shared/sealed-server-certificate.ts';
import {
  createSealingKeyFile,
  describeSealingKey,
  keysDirectory,
  legacySealingKeyFile,
  readSealingKey,
  refuseKeyBeside,
  sealingKeyVariables,
  type SealingKeySource,
} from '../shared/sealing-key.ts';
import { defaultCredentialLifetimeMs, healthStoreWaitMs } from './limits.ts';
import { memberCounts, storeProblem } from './member-counts.ts';
import { registerControllerMetrics } from './metrics.ts';
import { ControllerServer } from './server.ts';
import { ControllerService } from './service.ts';
import type { BudgetFigures } from './audit-budget.ts';
import { openControllerStore } from './store/controller-store.ts';
import { schemaNewerBy, storeEngine, type Store } from './store/open.ts';
import { shownUrl } from './store/store-url.ts';
import { loadReplicaIdentity } from './replica-identity.ts';
import { revocationNotices, revocationOfNotice } from './revocations.ts';
import { noticesOf } from './store/notices.ts';
import { ReplicaLiveState } from './replica-live-state.ts';
import { sharedKinds } from './shared-kinds.ts';
import { ConsoleAccess } from './console/access.ts';
import { signInLink } from './console/app.ts';
import type { RunningConsole } from './console/serve.ts';
import { serveControllerConsole } from './console/start.ts';
import type { Stoppable } from '../shared/graceful-stop.ts';

export interface ControllerOptions {
  readonly dataDir: string;
  /** @default "127.0.0.1" */
  readonly host?: string;
  /** 0 picks a free port. @default 0 */
  readonly port?: number;
  /** host:port written into tickets. @default the listening address */
  readonly publicAddress?: string;
  /** @default "sqlite:<dataDir>/controller.db" */
  readonly store?: string;
  /** A file holding the PostgreSQL store's password. @default PGPASSWORD */
  readonly storePasswordFile?: string;
  /** @default "portal.example.net" */
  readonly networkDomain?: string;
  /** @default defaultCredentialLifetimeMs */
  readonly credentialLifetimeMs?: number;
  /**
   * Where the key that seals the TLS key and the project CA keys comes from; never inside dataDir. A
   * file that does not exist is created while nothing is sealed yet.
   * @default the file <parent of dataDir>/keys/<name of dataDir>-seal.key
   */
  readonly sealingKey?: SealingKeySource;
  /**
   * A relay to serve on the controller's port, made once the service can verify members: it serves
   * every project, and members are told of it as the relay "controller".
   */
  readonly relay?: (
    verifyPeer: (certificate: X509Certificate | undefined) => Promise<PeerIdentity | undefined>,
    /** Where the relay's refusals go: the controller's audit trail. */
    onRefused: (peer: PeerIdentity, reason: 'allow' | 'limits', relay: string, detail: string) => void,
  ) => SharedDataPlane;
  readonly log?: (line: string) => void;
  /** Where the web console listens (src/controller/console/); none when not given. */
  readonly console?: { readonly host: string; readonly port: number };
  /** What members' audit reports may write. @default auditBudget */
  readonly auditBudget?: BudgetFigures;
}

/** Draining: takes no new connections, while the splices its embedded relay carries go on until close(). */
export interface RunningController extends Stoppable {
  /** The public address: what tickets carry. */
  readonly address: string;
  /** Where it actually listens. */
  readonly listening: string;
  readonly fingerprint: string;
  readonly service: ControllerService;
  readonly server: ControllerServer;
  /** Its Prometheus metrics (src/controller/metrics.ts), with the process's own. */
  readonly registry: Registry;
  /** The web console, where one was asked for. */
  readonly console?: RunningConsole;
  /** Undefined while it serves; why it does not otherwise (its store does not answer, it is stopping). */
  health(): Promise<string | undefined>;
}

/** Where the sealing key of a controller with this data directory is kept when nobody says. */
export function defaultControllerSealingKeyFile(dataDir: string): string {
  const directory = resolve(dataDir);
  return join(keysDirectory(dirname(directory)), `${basename(directory)}-seal.key`);
}

const howToGiveKey =
  `give it with --sealing-key-file, ${sealingKeyVariables.controllerFile}, ` +
  `${sealingKeyVariables.controllerMaterial} or the systemd credential controller-seal.key`;

export async function startController(options: ControllerOptions): Promise<RunningController> {
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  const storeUrl = options.store ?? `sqlite:${join(options.dataDir, 'controller.db')}`;
  const keySource: SealingKeySource = options.sealingKey ?? {
    kind: 'file',
    path: defaultControllerSealingKeyFile(options.dataDir),
  };
  const beside = `keep the sealing key on other storage (a secret store); ${howToGiveKey}`;
  refuseKeyBeside(keySource, options.dataDir, beside);
  if (storeUrl.startsWith('sqlite:'))
    refuseKeyBeside(keySource, dirname(resolve(storeUrl.slice('sqlite:'.length))), beside);
  // A SQLite store is refused once it moved to PostgreSQL, and held (for migrate-store to see) until closed.
  const opened = await openControllerStore(
    storeUrl,
    options.storePasswordFile ? { passwordFile: options.storePasswordFile } : {},
  );
  const store: Store = opened.store;
  const later = schemaNewerBy(store).join(', ');
  if (later) options.log?.(`controller: the store's schema is a later release's (${later}); running on it as it is`);
  let sealingKey: Buffer;
  let tls: ServerCertificate;
  try {
    sealingKey = await openSealedStore(store, storeUrl, keySource, options);
    // Replicas on one database answer to one pinned certificate, kept there; a lone controller keeps its own.
    tls =
      storeEngine(store) === 'postgres'
        ? await loadReplicaIdentity(store, {
            sealingKey,
            sealingKeyName: describeSealingKey(keySource),
            howToGiveKey,
            storeShown: shownUrl(storeUrl),
          })
        : await loadServerCertificate({
            directory: options.dataDir,
            commonName: 'portal-controller',
            sealingKey,
            sealingKeyName: describeSealingKey(keySource),
            howToGiveKey,
            ...(options.log ? { log: options.log } : {}),
          });
  } catch (error) {
    await opened.close();
    throw error;
  }
  const { certificate, privateKey: key } = tls;
  const fingerprint = fingerprintOf(certificate);
  const settings = {
    publicAddress: options.publicAddress ?? '',
    fingerprint,
    networkDomain: options.networkDomain ?? defaultNetworkDomain,
    credentialLifetimeMs: options.credentialLifetimeMs ?? defaultCredentialLifetimeMs,
    sealingKey,
  };
  const service = new ControllerService(store, settings, {
    ...(options.log ? { log: options.log } : {}),
    ...(options.auditBudget ? { auditBudget: options.auditBudget } : {}),
  });
  const relay = options.relay?.(
    (peer) => service.verifyPeer(peer),
    // The controller's own relay: its refusals are the controller's to record, tallied as a relay's are.
    (peer, reason, relayName, detail) =>
      service.audit.tally(peer.projectId, 'refused', [peer.nodeId], { portal: relayName, reason, detail }),
  );
  const registry = new Registry();
  collectProcessMetrics(registry, 'portal_controller_');
  // Read only when scraped, once the server below exists.
  const observe = registerControllerMetrics(registry, {
    members: () => memberCounts(store),
    relays: () => server.relays.counts(),
    figures: () => server.stats(),
    tally: service.tally,
  });
  const server = new ControllerServer({
    service,
    tls: { key, certificate },
    ...(relay ? { sharedWith: relay.handlers } : {}),
    ...(options.log ? { log: options.log } : {}),
    onRevoked: ({ entry }) => relay?.cutMember?.(entry.nodeId),
    observe,
    consoleLink: (admin) => {
      if (!webConsole) return undefined;
      const { url } = webConsole;
      return consoleAccess
        .issueLink(admin)
        .then(({ secret, expiresAt }) => ({ link: signInLink(url, secret), expiresAt }));
    },
  });
  const consoleAccess = new ConsoleAccess({ store });
  let webConsole: RunningConsole | undefined;
  let stopping = false;
  let bound;
  let replicas: { stop(): Promise<void> } | undefined;
  try {
    replicas = await hearOtherReplicas(store, server, service, sealingKey, options.publicAddress ?? '', options.log);
    bound = await server.listen(options.host ?? '127.0.0.1', options.port ?? 0);
    if (options.console)
      webConsole = await serveControllerConsole(options.console, {
        access: consoleAccess,
        service,
        server,
        tls: { key, certificate },
      });
  } catch (error) {
    if (bound) await server.close().catch(() => undefined);
    await replicas?.stop();
    await relay?.close();
    await opened.close();
    throw error;
  }
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  const address = options.publicAddress ?? `${host === '0.0.0.0' ? '127.0.0.1' : host}:${bound.port}`;
  service.bindAddress(address);
  if (relay) server.relays.addEverywhere({ id: 'controller', address, fingerprint });
  return {
    address,
    listening: `${host}:${bound.port}`,
    fingerprint,
    service,
    server,
    registry,
    ...(webConsole ? { console: webConsole } : {}),
    health: async () => (stopping ? 'it is stopping' : storeProblem(store, healthStoreWaitMs)),
    stopAccepting() {
      stopping = true;
      server.stopAccepting();
      relay?.stopAccepting();
    },
    openConnections: () => relay?.openConnections() ?? 0,
    whenIdle: async () => relay?.whenIdle(),
    async close() {
      stopping = true;
      // What is left to write goes if the database takes it; one that is down does not keep the
      // controller from stopping.
      const written = (what: string) => (error: Error) =>
        options.log?.(`controller: ${what} was not written while stopping: ${error.message}`);
      await webConsole?.close();
      await relay?.close();
      await server.close().catch(written("the members' last-seen times"));
      await service.reports.flush().catch(written('the reports of nodes and relays'));
      await service.audit.flushTallies().catch(written('the tallies of refusals'));
      await replicas?.stop().catch(written("this replica's withdrawal"));
      await opened.close();
    },
  };
}

/**
 * The sealing key, checked against every sealed CA key in the store before anything is served: a
 * missing or wrong key stops the controller in one line, and never makes a new key while sealed data
 * (a CA key, or the TLS key) exists. State from an earlier version (its key in <dataDir>/seal.key) is
 * re-sealed under the key once, in one transaction, and the old key removed.
 */
async function openSealedStore(
  store: Store,
  storeUrl: string,
  source: SealingKeySource,
  options: ControllerOptions,
): Promise<Buffer> {
  const rows = await store.selectFrom('projects').select(['id', 'ca_private_key']).execute();
  const legacyPath = join(options.dataDir, legacySealingKeyFile);
  const legacy = await readFile(legacyPath).catch(() => undefined);
  const where = describeSealingKey(source);
  let key = await readSealingKey(source);
  if (!key) {
    if (rows.length > 0 && !legacy) {
      throw new RuntimeFailure(
        'SEALING_KEY_MISSING',
        `the project CA keys in ${storeUrl} are sealed, but the sealing key file ${where} does not exist`,
        {
          hint: `${howToGiveKey} (the key that sealed them: a new one cannot open them)`,
        },
      );
    }
    if (hasSealedServerKey(options.dataDir)) {
      const sealedTlsKey = join(options.dataDir, serverCertificateFiles.sealedKey);
      throw new RuntimeFailure(
        'SEALING_KEY_MISSING',
        `the TLS key in ${sealedTlsKey} is sealed, but the sealing key file ${where} does not exist`,
        {
          hint: `${howToGiveKey} (the key that sealed it: a new one cannot open it)`,
        },
      );
    }
    key = await createSealingKeyFile(describeSealingKey(source));
  }
  const resealed: { id: string; sealed: string }[] = [];
  for (const row of rows) {
    const sealed = Buffer.from(row.ca_private_key, 'base64');
    try {
      unseal(key, sealed);
      continue;
    } catch (error) {
      if (!(error instanceof UnsealError)) throw error;
      if (!legacy || error.reason === 'damaged') throw unsealFailure(error, where, storeUrl, row.id);
    }
    try {
      resealed.push({ id: row.id, sealed: seal(key, unseal(legacy, sealed)).toString('base64') });
    } catch (error) {
      if (!(error instanceof UnsealError)) throw error;
      throw unsealFailure(error, where, storeUrl, row.id);
    }
  }
  if (resealed.length > 0) {
    await store.transaction().execute(async (trx) => {
      for (const row of resealed)
        await trx.updateTable('projects').set({ ca_private_key: row.sealed }).where('id', '=', row.id).execute();
    });
  }
  if (legacy) {
    await rm(legacyPath, { force: true });
    options.log?.(
      `moved the sealing key out of ${options.dataDir}: ${resealed.length} project CA keys re-sealed under ${where}, ` +
        `and ${legacyPath} was removed`,
    );
  }
  return key;
}

function unsealFailure(error: UnsealError, where: string, storeUrl: string, projectId: string): RuntimeFailure {
  if (error.reason === 'damaged' || error.reason === 'not-sealed') {
    return new RuntimeFailure(
      'STORE_DAMAGED',
      `the sealed CA key of project ${projectId} in ${storeUrl} is ${error.message}`,
      {
        hint: 'restore the store from a backup',
      },
    );
  }
  return new RuntimeFailure(
    'SEALING_KEY_WRONG',
    `the sealing key in ${where} does not open the project CA keys in ${storeUrl} (${error.message})`,
    {
      hint: `${howToGiveKey}: the one that sealed them`,
    },
  );
}

/**
 * Replicas on one PostgreSQL store: a revocation made on another is enforced here at once (its
 * notice), and each time listening (re)starts the revocations are read again, for the notices missed
 * meanwhile (store/notices.ts); relay nodes and direct paths announced to any replica are told to this
 * one's members (replica-live-state.ts). Undefined on SQLite, whose controller is alone.
 */
async function hearOtherReplicas(
  store: Store,
  server: ControllerServer,
  service: ControllerService,
  sealingKey: Buffer,
  publicAddress: string,
  log: ((line: string) => void) | undefined,
): Promise<{ stop(): Promise<void> } | undefined> {
  const notices = noticesOf(store);
  if (!notices) return undefined;
  const failed = (what: string) => (error: Error) => log?.(`controller: ${what} failed: ${error.message}`);
  const revocations = await notices.listen(
    revocationNotices,
    (payload) => {
      const revocation = revocationOfNotice(payload);
      if (revocation) server.enforceElsewhere(revocation).catch(failed('a revocation from another replica'));
    },
    () => void service.reloadRevocations().catch(failed('reading the revocations again')),
  );
  const kinds = sharedKinds(server.announcements, sealingKey);
  const live = await ReplicaLiveState.start(store, notices, kinds, {
    addresses: publicAddress,
    onControllers: (addresses) => server.announcements.subscribers.greet({ event: 'controllers', addresses }),
    log,
  }).catch(async (error: unknown) => {
    await revocations.stop();
    throw error;
  });
  return {
    async stop() {
      await live.stop();
      await revocations.stop();
    },
  };
}
