/**
 * The store as a controller opens it. A SQLite store is held while the controller has it open
 * (store-holder.ts) and refused while another controller's process holds it. One that moved to
 * PostgreSQL is refused (moved-marker.ts): before it is opened, and again once it is held, so that a
 * start racing `portal controller migrate-store` either sees the marker or is seen by the move, which
 * writes the marker before it looks for a holder a last time.
 */
import { openStore, type Store, type StoreOptions } from './open.ts';
import { refuseMovedStore } from './moved-marker.ts';
import { holdStore, isStoreFile, liveHolder, storeInUse, type StoreHold } from './store-holder.ts';
import { parseStoreUrl } from './store-url.ts';

export interface ControllerStore {
  readonly store: Store;
  /** Closes the store, then gives up holding it. */
  close(): Promise<void>;
}

export async function openControllerStore(url: string, options: StoreOptions = {}): Promise<ControllerStore> {
  const target = parseStoreUrl(url, process.env);
  const path = target.kind === 'sqlite' && isStoreFile(target.path) ? target.path : undefined;
  if (path !== undefined) {
    await refuseMovedStore(path);
    await refuseHeldStore(path);
  }
  const store = await openStore(url, options);
  let hold: StoreHold | undefined;
  try {
    if (path !== undefined) {
      hold = await holdStore(path);
      await refuseMovedStore(path);
    }
  } catch (error) {
    await hold?.release();
    await store.destroy();
    throw error;
  }
  return {
    store,
    async close() {
      await store.destroy();
      await hold?.release();
    },
  };
}

/** Refused before the store is opened (and migrated); holdStore closes the race of two starting at once. */
async function refuseHeldStore(path: string): Promise<void> {
  const holder = await liveHolder(path);
  if (holder && holder.pid !== process.pid) throw storeInUse(path, holder);
}
