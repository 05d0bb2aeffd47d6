/**
 * A Prometheus scrape as a test reads it: GET /metrics over HTTP, each sample's name, labels and value;
 * and a wait on /healthz for a status.
 */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export async function scrape(address: string): Promise<Sample[]> {
  const answer = await fetch(`http://${address}/metrics`);
  if (answer.status !== 200) throw new Error(`GET http://${address}/metrics answered ${answer.status}`);
  return parseSamples(await answer.text());
}

/** The samples of Prometheus text (label values without escaped quotes, as Portal's are). */
export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const [, name = '', labelText = '', value = ''] = match;
    const labels: Record<string, string> = {};
    for (const pair of labelText.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"/g)) labels[pair[1] ?? ''] = pair[2] ?? '';
    samples.push({ name, labels, value: Number(value) });
  }
  return samples;
}

/** The sum of the samples named `name` whose labels include `labels`. */
export function valueOf(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((sample) => sample.name === name)
    .filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}

export interface Health {
  readonly status: number;
  readonly body: { readonly status: string; readonly process: string; readonly reason?: string };
}

export async function healthOf(address: string): Promise<Health> {
  const answer = await fetch(`http://${address}/healthz`);
  return { status: answer.status, body: (await answer.json()) as Health['body'] };
}

/** Asks /healthz every 100 ms until it answers `status`; the last answer. */
export async function healthWhen(address: string, status: number, limitMs = 20_000): Promise<Health> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const health = await healthOf(address);
    if (health.status === status) return health;
    if (Date.now() > deadline)
      throw new Error(`http://${address}/healthz answered ${JSON.stringify(health)}, not ${status}, for ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
