/**
 * YAML source files with positions: parse once, then map any JSON pointer back to a line and column
 * so that every problem names the exact place in the file.
 */
import {
  CST,
  Lexer,
  LineCounter,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  parseDocument,
  visit,
  type Document,
  type Node,
} from 'yaml';
import type { Problem } from './errors.ts';

export interface Position {
  readonly line: number;
  readonly column: number;
}

export interface YamlSource {
  readonly file: string;
  /** The document as plain data (undefined when it did not parse). */
  readonly value: unknown;
  /** Syntax problems; when any exist, `value` must not be trusted. */
  readonly syntaxProblems: readonly Problem[];
  /** Where the value (or, with `at: 'key'`, the key) at `pointer` starts; the nearest parent if absent. */
  locate(pointer: string, at?: 'key' | 'value'): Position;
  /** A problem located at `pointer`. */
  problem(pointer: string, message: string, at?: 'key' | 'value'): Problem;
}

export function decodePointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function encodePointer(segments: readonly (string | number)[]): string {
  return segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

export function parseYamlSource(file: string, text: string): YamlSource {
  const tooDeep = deepFlowOffset(text);
  // The parser recurses once per nested [ or {: a few hundred exhaust the stack, and a stack exhausted
  // inside V8's regular-expression compiler ends the process rather than throw. Such text is refused unparsed.
  if (tooDeep !== undefined) return unparsed(file, positionOf(text, tooDeep));
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const positionAt = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };

  const syntaxProblems: Problem[] = doc.errors.map((error) => {
    const { line, column } = positionAt(error.pos[0]);
    const firstLine = error.message.split('\n')[0] ?? error.message;
    return { file, line, column, pointer: '', message: `not valid YAML: ${firstLine}` };
  });

  const locate = (pointer: string, at: 'key' | 'value' = 'value'): Position =>
    positionAt(nodeOffset(doc, decodePointer(pointer), at));

  // A map or list used as a key would be turned into text by toJS, slowly (seconds for a few hundred
  // nested braces) and unreadably; no Portal document has one, so it is refused where it stands.
  const complexKey = syntaxProblems.length === 0 ? firstComplexKey(doc) : undefined;
  if (complexKey) {
    syntaxProblems.push({
      file,
      ...positionAt(complexKey.offset),
      pointer: complexKey.pointer,
      message: 'a key must be plain text, not a map, a list, an alias or tagged data',
    });
  }

  let value: unknown;
  if (syntaxProblems.length === 0) {
    try {
      value = doc.toJS({ maxAliasCount });
    } catch (error) {
      // The yaml package refuses a document whose aliases expand past maxAliasCount (a "billion laughs").
      if (!(error instanceof ReferenceError)) throw error;
      const alias = firstAlias(doc);
      syntaxProblems.push({
        file,
        ...positionAt(alias.offset),
        pointer: alias.pointer,
        message:
          `aliases expand to more than ${maxAliasCount} copies (a YAML alias bomb?); ` +
          'write the values out instead of repeating anchors',
      });
    }
  }

  return {
    file,
    value: syntaxProblems.length > 0 ? undefined : value,
    syntaxProblems,
    locate,
    problem(pointer, message, at = 'value') {
      return { file, ...locate(pointer, at), pointer, message };
    },
  };
}

/** How many alias expansions a document may hold; more is refused as a resource exhaustion attack. */
export const maxAliasCount = 100;

/** How deep [ ] and { } may nest; Portal's documents need three. */
export const maxFlowDepth = 64;

/** Tokens the lexer adds that stand for no character of the text. */
const syntheticTokens = new Set(['doc-mode', 'scalar', 'flow-error-end']);

/** The offset of the first [ or { that nests deeper than maxFlowDepth, found without recursion. */
function deepFlowOffset(text: string): number | undefined {
  let depth = 0;
  let offset = 0;
  for (const token of new Lexer().lex(text)) {
    const type = CST.tokenType(token);
    if (type === 'flow-seq-start' || type === 'flow-map-start') {
      depth += 1;
      if (depth > maxFlowDepth) return offset;
    } else if (type === 'flow-seq-end' || type === 'flow-map-end') depth = Math.max(0, depth - 1);
    if (type === null || !syntheticTokens.has(type)) offset += token.length;
  }
  return undefined;
}

/** Line and column (from 1) of `offset` in `text`. */
function positionOf(text: string, offset: number): Position {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

/** A source refused before parsing: one problem at `at`, where every pointer is located. */
function unparsed(file: string, at: Position): YamlSource {
  const message = `not valid YAML here: lists and maps nest more than ${maxFlowDepth} deep in [ ] or { }`;
  return {
    file,
    value: undefined,
    syntaxProblems: [{ file, ...at, pointer: '', message }],
    locate: () => at,
    problem: (pointer, text) => ({ file, ...at, pointer, message: text }),
  };
}

interface Found {
  readonly offset: number;
  readonly pointer: string;
}

/** The JSON pointer of a node from the path `visit` gives it. */
function pointerOf(path: readonly unknown[], node: unknown): string {
  const segments: (string | number)[] = [];
  const chain = [...path, node];
  for (const [index, item] of chain.entries()) {
    const parent = chain[index - 1];
    if (isPair(item) && isScalar(item.key)) segments.push(String(item.key.value));
    else if (isSeq(parent)) segments.push(parent.items.indexOf(item));
  }
  return encodePointer(segments);
}

/** Where the first alias of the document is, as an offset and a JSON pointer. */
function firstAlias(doc: Document): Found {
  let found: Found = { offset: 0, pointer: '' };
  visit(doc, {
    Alias(_key, node, path) {
      found = { offset: node.range?.[0] ?? 0, pointer: pointerOf(path, node) };
      return visit.BREAK;
    },
  });
  return found;
}

/** Where the first key that is a map or a list is, if any. */
function firstComplexKey(doc: Document): Found | undefined {
  let found: Found | undefined;
  visit(doc, {
    Pair(_key, pair, path) {
      // An alias key may stand for a map or a list too, and a tagged scalar for binary data or a date;
      // Portal documents have no use for either.
      const objectScalar = isScalar(pair.key) && typeof pair.key.value === 'object' && pair.key.value !== null;
      if (!isMap(pair.key) && !isSeq(pair.key) && !isAlias(pair.key) && !objectScalar) return undefined;
      found = { offset: rangeStart(pair.key) ?? 0, pointer: pointerOf(path, pair) };
      return visit.BREAK;
    },
  });
  return found;
}

function nodeOffset(doc: Document, segments: readonly string[], at: 'key' | 'value'): number {
  let node: unknown = doc.contents;
  let offset = rangeStart(node) ?? 0;
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === segment);
      if (!pair) return offset;
      if (last && at === 'key') return rangeStart(pair.key) ?? offset;
      node = pair.value;
      offset = rangeStart(node) ?? rangeStart(pair.key) ?? offset;
    } else if (isSeq(node)) {
      node = node.items[Number(segment)];
      offset = rangeStart(node) ?? offset;
    } else {
      return offset;
    }
  }
  return offset;
}

function rangeStart(node: unknown): number | undefined {
  return (node as Node | null | undefined)?.range?.[0];
}
