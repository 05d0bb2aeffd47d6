/**
 * YAML text as a careless or hostile author writes it, for the parsers of manifests and node
 * configurations: documents rendered from data, lines built from YAML's sharper features (anchors,
 * aliases, tags, merge keys, block scalars, flow collections), nesting and alias fan-out.
 */
import fc from 'fast-check';
import { stringify } from 'yaml';
import { hostileText } from './fuzz.ts';

const scalar = fc.oneof(
  hostileText(4),
  fc.constantFrom(
    '~',
    'null',
    'true',
    'no',
    'on',
    '0x1F',
    '0o17',
    '1e400',
    '-.inf',
    '.nan',
    '2001-12-14t21:59:43.10-05:00',
    '!!binary aGVsbG8=',
    '!!str 1',
    '!!int x',
    '!!float y',
    '!!set {a, b}',
    '!!omap [a: 1]',
    '!custom x',
    '!<tag:yaml.org,2002:str> z',
    '&a x',
    '*a',
    '*undefined',
    '|',
    '>-',
    '"\\x00\\u0000\\U0010FFFF"',
    "'it''s'",
    '[a, *a, &b b]',
    '{a: 1, a: 2}',
    '? complex',
    '<<: *a',
    '{<<: [*a, *a]}',
    '%YAML 1.1',
    '@reserved',
    '`reserved',
  ),
);

/** A line of a block mapping or sequence at some indentation. */
const line = fc
  .tuple(
    fc.nat({ max: 6 }),
    fc.oneof(
      fc.constantFrom('', '- ', '? ', ': '),
      fc.stringMatching(/^[a-z-]{1,12}: $/),
      hostileText(2).map((key) => `${key}: `),
    ),
    scalar,
  )
  .map(([indent, head, value]) => ' '.repeat(indent) + head + value);

/** `depth` levels of flow or block nesting, up to 500 (flow maps as keys of flow maps are refused at once). */
const nested = fc
  .tuple(fc.integer({ min: 1, max: 500 }), fc.constantFrom('[', '{', '- ', 'a: ', '{a: '), fc.boolean())
  .map(([depth, open, closed]) => {
    const close = open === '[' ? ']' : open.startsWith('{') ? '}' : '';
    const body =
      open.endsWith(' ') && !open.startsWith('{')
        ? Array.from({ length: depth }, (_, index) => ' '.repeat(index) + open).join('\n') + 'x'
        : open.repeat(depth);
    return closed ? body + close.repeat(depth) : body;
  });

/**
 * Anchors whose aliases fan out level after level: `levels` of `fanOut` aliases each give fanOut^levels
 * nodes from a few hundred bytes (a "billion laughs").
 */
export const aliasFanOut = fc
  .tuple(fc.integer({ min: 2, max: 10 }), fc.integer({ min: 2, max: 9 }))
  .map(([fanOut, levels]) => {
    const lines = [`l0: &l0 [${Array.from({ length: fanOut }, () => 'lol').join(', ')}]`];
    for (let level = 1; level < levels; level += 1)
      lines.push(`l${level}: &l${level} [${Array.from({ length: fanOut }, () => `*l${level - 1}`).join(', ')}]`);
    return `${lines.join('\n')}\n`;
  });

/** Any YAML text: hostile lines, deep nesting, alias fan-out, or data rendered as YAML or JSON. */
export function yamlText(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.array(line, { maxLength: 12 }).map((lines) => lines.join('\n')),
    nested,
    fc.jsonValue({ maxDepth: 3 }).map((value) => stringify(value)),
    fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value) ?? ''),
    aliasFanOut,
  );
}

type Path = readonly (string | number)[];

/** The path of every node of a data tree, the root first. */
function pathsOf(node: unknown, at: Path = []): Path[] {
  if (node === null || typeof node !== 'object') return [at];
  const children = Array.isArray(node)
    ? node.map((item, index) => [index, item] as const)
    : Object.entries(node as Record<string, unknown>);
  return [at, ...children.flatMap(([key, item]) => pathsOf(item, [...at, key]))];
}

type Edit = { readonly kind: 'replace' | 'delete' | 'add'; readonly value: unknown; readonly key: string };

/** A copy of `node` with `edit` made at `path`. */
function apply(node: unknown, path: Path, edit: Edit): unknown {
  if (path.length === 0) {
    if (edit.kind === 'replace') return edit.value;
    if (edit.kind === 'add' && Array.isArray(node)) return [...(node as unknown[]), edit.value];
    if (edit.kind === 'add' && node !== null && typeof node === 'object') return { ...node, [edit.key]: edit.value };
    return node;
  }
  // An earlier edit may have replaced what this path went through.
  if (node === null || typeof node !== 'object') return node;
  const [head, ...rest] = path;
  if (Array.isArray(node)) {
    const items = node as unknown[];
    const index = Number(head);
    if (rest.length === 0 && edit.kind === 'delete') return items.filter((_, at) => at !== index);
    return items.map((item, at) => (at === index ? apply(item, rest, edit) : item));
  }
  const record = node as Record<string, unknown>;
  const key = String(head);
  if (rest.length === 0 && edit.kind === 'delete')
    return Object.fromEntries(Object.entries(record).filter(([name]) => name !== key));
  return Object.fromEntries(
    Object.entries(record).map(([name, item]) => [name, name === key ? apply(item, rest, edit) : item]),
  );
}

/**
 * A data tree with one to three edits at random places (replace, delete, or add a key or item) with
 * any JSON value or hostile text: mostly near the valid input, so that what follows parsing is reached.
 */
export function edited(value: unknown): fc.Arbitrary<unknown> {
  const paths = pathsOf(value);
  const edit: fc.Arbitrary<[Path, Edit]> = fc.tuple(
    fc.constantFrom(...paths),
    fc.record({
      kind: fc.constantFrom('replace' as const, 'delete' as const, 'add' as const),
      value: fc.oneof(fc.jsonValue({ maxDepth: 2 }), hostileText(6), fc.string({ maxLength: 5000 })),
      key: fc.oneof(fc.string({ maxLength: 12 }), hostileText(2)),
    }),
  );
  return fc
    .array(edit, { minLength: 1, maxLength: 3 })
    .map((edits) => edits.reduce((tree, [path, change]) => apply(tree, path, change), value));
}

/** Renders data as a user would write it: YAML (block or flow) or JSON. */
export const rendered = (data: unknown): fc.Arbitrary<string> =>
  fc
    .constantFrom('yaml', 'flow', 'json')
    .map((form) =>
      form === 'json' ? JSON.stringify(data) : stringify(data, form === 'flow' ? { collectionStyle: 'flow' } : {}),
    );
