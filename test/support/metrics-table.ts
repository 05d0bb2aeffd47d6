/**
 * docs/operating.md's table of every metric, made from the registries of running processes: each family's
 * name, type, labels, the processes that serve it, and its HELP text as its meaning. The processes'
 * own default families (portal_<process>_process_*, portal_<process>_nodejs_*) make one row.
 */
import type { Registry } from 'prom-client';

export type ProcessName = 'node' | 'controller' | 'relay';

interface Family {
  readonly name: string;
  readonly type: string;
  readonly labels: readonly string[];
  readonly help: string;
  readonly processes: Set<ProcessName>;
}

export const processDefaults = /^portal_(node|controller|relay)_(process|nodejs)_/;

export const tableStart = '<!-- metrics table: made by test/shared/metrics-table.test.ts -->';
export const tableEnd = '<!-- end of the metrics table -->';

/** The table, in Markdown, of the families each process's registries hold. */
export function metricsTable(registries: Readonly<Record<ProcessName, readonly Registry[]>>): string {
  const families = new Map<string, Family>();
  for (const [process, held] of Object.entries(registries) as [ProcessName, readonly Registry[]][]) {
    for (const registry of held) {
      for (const metric of registry.getMetricsAsArray()) {
        if (processDefaults.test(metric.name)) continue;
        const labels = (metric as unknown as { labelNames?: readonly string[] }).labelNames ?? [];
        const family = families.get(metric.name) ?? {
          name: metric.name,
          // The type as Prometheus names it ("counter"): prom-client's typings call it an enum.
          type: String(metric.type),
          labels,
          help: metric.help,
          processes: new Set<ProcessName>(),
        };
        family.processes.add(process);
        families.set(metric.name, family);
      }
    }
  }
  const order: readonly ProcessName[] = ['node', 'controller', 'relay'];
  const rows = [...families.values()]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((family) => {
      const processes = order.filter((process) => family.processes.has(process)).join(', ');
      const labels = family.labels.map((label) => `\`${label}\``).join(', ') || '—';
      const help = family.help.replaceAll('|', '\\|');
      return `| \`${family.name}\` | ${family.type} | ${labels} | ${processes} | ${help} |`;
    });
  return [
    tableStart,
    '| metric | type | labels | served by | meaning |',
    '|---|---|---|---|---|',
    ...rows,
    '| `portal_<process>_process_*`, `portal_<process>_nodejs_*` | | | node, controller, relay | ' +
      "the process's CPU, memory, descriptors, event loop and garbage collection (prom-client's defaults) |",
    tableEnd,
  ].join('\n');
}
