/**
 * CloudFormation YAML with short-form intrinsic tags. Printing turns long-form intrinsic objects into
 * tagged nodes; parsing turns the tags back, so that parse(print(t)) deep-equals t.
 */
import { Document, Scalar, YAMLMap, YAMLSeq, parse, type CollectionTag, type Node, type Tags } from 'yaml';
import { portableYamlOptions } from '../../shared/serialize.ts';

interface TagForm {
  readonly key: string;
  readonly tag: string;
  /** Long-form value → printable node; undefined when this form does not apply. */
  readonly print: (value: unknown, toNode: (value: unknown) => Node) => Node | undefined;
}

const scalarForm = (key: string, tag: string): TagForm => ({
  key,
  tag,
  print: (value) => (typeof value === 'string' ? new Scalar(value) : undefined),
});

const forms: readonly TagForm[] = [
  scalarForm('Ref', '!Ref'),
  scalarForm('Fn::Sub', '!Sub'),
  {
    key: 'Fn::GetAtt',
    tag: '!GetAtt',
    print: (value) => (Array.isArray(value) && value.length === 2 ? new Scalar(value.join('.')) : undefined),
  },
  // A node carries one tag, so `Fn::Base64: !Sub …` keeps the long form outside.
  scalarForm('Fn::Base64', '!Base64'),
  ...['Join', 'Equals', 'Not', 'If', 'Select'].map((name) => ({
    key: `Fn::${name}`,
    tag: `!${name}`,
    print: (value: unknown, toNode: (value: unknown) => Node) => (Array.isArray(value) ? toNode(value) : undefined),
  })),
];

export function printCfnYaml(template: unknown): string {
  const doc = new Document(undefined, { version: portableYamlOptions.version });
  const toNode = (value: unknown): Node => {
    if (Array.isArray(value)) {
      const seq = new YAMLSeq();
      for (const item of value) seq.add(toNode(item));
      return seq;
    }
    if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      const [only] = entries;
      const form = entries.length === 1 && only ? forms.find((f) => f.key === only[0]) : undefined;
      const printed = form && only ? form.print(only[1], toNode) : undefined;
      if (form && printed) {
        printed.tag = form.tag;
        return printed;
      }
      const map = new YAMLMap();
      for (const [key, item] of entries) map.set(new Scalar(key), toNode(item));
      return map;
    }
    return doc.createNode(value);
  };
  doc.contents = toNode(template);
  return doc.toString({ lineWidth: portableYamlOptions.lineWidth });
}

const parseTags: Tags = [
  { tag: '!Ref', resolve: (value: string) => ({ Ref: value }) },
  { tag: '!Sub', resolve: (value: string) => ({ 'Fn::Sub': value }) },
  { tag: '!GetAtt', resolve: (value: string) => ({ 'Fn::GetAtt': splitOnce(value) }) },
  { tag: '!Base64', resolve: (value: string) => ({ 'Fn::Base64': value }) },
  ...['Join', 'Equals', 'Not', 'If', 'Select'].map((name): CollectionTag => ({
    tag: `!${name}`,
    collection: 'seq',
    resolve: (seq) => ({ [`Fn::${name}`]: seq.toJSON() as unknown }),
  })),
];

export function parseCfnYaml(text: string): unknown {
  return parse(text, { customTags: parseTags });
}

function splitOnce(value: string): [string, string] {
  const dot = value.indexOf('.');
  return [value.slice(0, dot), value.slice(dot + 1)];
}
