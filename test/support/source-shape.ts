/**
 * The shape of the source tree, read as text: each module's relative imports (type-only ones too) and
 * each file's length. Pure functions over what the caller read, so the checks themselves are tested
 * on graphs made for the purpose.
 */
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';

/** The longest a file under src/ or scripts/ may be: past it, the file is split by concept. */
export const maxSourceLines = 400;

/**
 * The modules `text` (the file at `path`) imports by a relative specifier, as paths like `path`:
 * `import`, `import type`, `export … from` and `import()` alike, since a circle of types is a circle.
 */
export function relativeImports(path: string, text: string): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles
    .map((imported) => imported.fileName)
    .filter((specifier) => specifier.startsWith('./') || specifier.startsWith('../'))
    .map((specifier) => normalize(join(dirname(path), specifier)));
}

/** Lines as `wc -l` counts them, plus a last line without its newline. */
export function lineCount(text: string): number {
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') || text.length === 0 ? newlines : newlines + 1;
}

/**
 * Every circle of imports among the graph's modules, one per strongly connected set (Tarjan), each as
 * the path that goes round it and back to its start: `[a, b, a]`. Imports of modules outside the
 * graph (JSON files, packages) are ignored.
 */
export function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const order = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const sets: string[][] = [];
  const visit = (module: string) => {
    order.set(module, order.size);
    lowest.set(module, order.get(module) as number);
    stack.push(module);
    onStack.add(module);
    for (const target of graph.get(module) ?? []) {
      if (!graph.has(target)) continue;
      if (!order.has(target)) {
        visit(target);
        lowest.set(module, Math.min(lowest.get(module) as number, lowest.get(target) as number));
      } else if (onStack.has(target)) {
        lowest.set(module, Math.min(lowest.get(module) as number, order.get(target) as number));
      }
    }
    if (lowest.get(module) !== order.get(module)) return;
    const set: string[] = [];
    for (;;) {
      const member = stack.pop() as string;
      onStack.delete(member);
      set.push(member);
      if (member === module) break;
    }
    const selfImport = graph.get(module)?.includes(module) ?? false;
    if (set.length > 1 || selfImport) sets.push(set);
  };
  for (const module of [...graph.keys()].sort()) if (!order.has(module)) visit(module);
  return sets.map((set) => roundTrip(graph, new Set(set)));
}

/** A shortest path from the set's first module (by name) back to itself, inside the set. */
function roundTrip(graph: ReadonlyMap<string, readonly string[]>, set: ReadonlySet<string>): string[] {
  const start = [...set].sort()[0] as string;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const module = queue.shift() as string;
    for (const target of graph.get(module) ?? []) {
      if (!set.has(target)) continue;
      if (target === start) {
        const path = [module];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0] as string) as string);
        return [...path, start];
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, module);
        queue.push(target);
      }
    }
  }
  return [start, start];
}
