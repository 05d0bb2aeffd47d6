/** Where the CLI keeps its state: $PORTAL_HOME, by default ~/.portal. */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { keysDirectory, sealingKeyFileNames } from '../shared/sealing-key.ts';

export function portalHome(environment: NodeJS.ProcessEnv = process.env): string {
  return environment.PORTAL_HOME || join(homedir(), '.portal');
}

export const adminDirectory = (home: string) => join(home, 'admin');
export const embeddedControllerDirectory = (home: string) => join(home, 'controller');
/** The embedded controller's store: its projects, members, tickets and audit trail. */
export const embeddedControllerStore = (home: string) => join(home, 'controller', 'controller.db');
export const embeddedControllerRuntime = (home: string) => join(home, 'controller', 'runtime.json');
/** Where the embedded controller listens and what tickets name: kept so that a restart keeps them. */
export const embeddedControllerSettings = (home: string) => join(home, 'controller', 'embedded.json');
/** The embedded controller's log (it runs in the background, so nobody reads its standard error). */
export const embeddedControllerLog = (home: string) => join(home, 'controller', 'controller.log');
/** The embedded controller's sealing key: under $PORTAL_HOME/keys, never in its data directory. */
export const embeddedControllerSealingKey = (home: string) => join(keysDirectory(home), sealingKeyFileNames.controller);

/** What `portal reset` keeps: the installed program itself. */
export const installationEntries = ['bin', 'lib', 'env'] as const;
