/**
 * This side's pings that wait for their pongs. Each carries a payload of its own, which its pong must
 * carry back: a pong that answers none of them is the peer's violation, not a late answer.
 */
export type PingCallback = (error: Error | null) => void;

export class Pings {
  private sent = 0;
  private readonly waiting = new Map<string, PingCallback>();

  constructor(
    /** How many may wait at once. */
    private readonly most: number,
  ) {}

  /** The payload of a new ping, whose pong `callback` hears; undefined when `most` wait already. */
  add(callback: PingCallback): Buffer | undefined {
    if (this.waiting.size >= this.most) return undefined;
    this.sent += 1;
    const payload = Buffer.alloc(8);
    payload.writeUIntBE(this.sent, 2, 6);
    this.waiting.set(payload.toString('hex'), callback);
    return payload;
  }

  /** The callback of the ping that `payload` answers, taken off the list; undefined when none waits. */
  answered(payload: Buffer): PingCallback | undefined {
    const key = payload.toString('hex');
    const callback = this.waiting.get(key);
    this.waiting.delete(key);
    return callback;
  }

  /** The session is over: every ping waiting is answered (its end is for its 'close' listeners). */
  answerAll(): void {
    const callbacks = [...this.waiting.values()];
    this.waiting.clear();
    for (const callback of callbacks) callback(null);
  }
}
