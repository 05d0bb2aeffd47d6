/**
 * What controller replicas on one PostgreSQL store tell each other: a notice sent in the transaction
 * that makes a change (pg_notify, delivered to every listening replica when, and only if, it commits),
 * for what a replica keeps in memory and must act on at once (a revocation: its connections close
 * everywhere). A replica that lost its connection to the database may have missed notices: each time
 * its listening (re)starts, it reads what they would have told it from the tables again.
 *
 * A SQLite store has one controller, which needs none of this: noticesOf gives undefined.
 */
import { sql, type Transaction } from 'kysely';
import type { Database } from './schema.ts';

export interface StoreNotices {
  /**
   * Calls `onNotice` with each notice's payload on `channel`, and `onListening` each time listening
   * starts (the first time and after every reconnection); resolves once listening.
   */
  listen(
    channel: string,
    onNotice: (payload: string) => void,
    onListening: () => void,
  ): Promise<{ stop(): Promise<void> }>;
}

const noticesByStore = new WeakMap<object, StoreNotices>();

export function attachNotices(store: object, notices: StoreNotices): void {
  noticesByStore.set(store, notices);
}

export function noticesOf(store: object): StoreNotices | undefined {
  return noticesByStore.get(store);
}

/** The notice of a change, sent with it: nobody hears of it unless `trx` commits. */
export async function notifyWith(trx: Transaction<Database>, channel: string, payload: string): Promise<void> {
  await sql`select pg_notify(${channel}, ${payload})`.execute(trx);
}
