/**
 * A controller run as replicas is reached at several addresses, comma-separated where one would be (in
 * tickets, admin codes and node records): "a.example.net:4000,b.example.net:4000". A client tries the
 * one that answered it last first, then the others, each given little time, so that a dead replica
 * costs at most failoverConnectMs before the next is tried.
 */
export const addressesOf = (address: string): string[] => address.split(',').filter((item) => item !== '');

/** With several addresses, how long one may take to connect before the next is tried. */
export const failoverConnectMs = 1500;

/** The address of each list that answered last. */
const lastAnswered = new Map<string, string>();

/**
 * What `attempt` gives for the first address of `list` that answers; when none does, `failed` turns
 * the errors (in the order tried) into the one to throw.
 */
export async function firstAnswering<T>(
  list: string,
  timeoutMs: number,
  attempt: (address: string, timeoutMs: number) => Promise<T>,
  failed: (errors: unknown[]) => unknown,
): Promise<T> {
  const addresses = addressesOf(list);
  const first = lastAnswered.get(list);
  const order = first && addresses.includes(first) ? [first, ...addresses.filter((a) => a !== first)] : addresses;
  const errors: unknown[] = [];
  for (const address of order) {
    try {
      const result = await attempt(address, Math.min(timeoutMs, failoverConnectMs));
      lastAnswered.set(list, address);
      return result;
    } catch (error) {
      errors.push(error);
    }
  }
  throw failed(errors);
}
