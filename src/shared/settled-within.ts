/** Waits for `promise` at most `ms`: true when the time ran out first (what it would give is dropped). */
export async function timedOut(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = await Promise.race([
    promise.then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), ms))),
  ]);
  clearTimeout(timer);
  return late;
}
