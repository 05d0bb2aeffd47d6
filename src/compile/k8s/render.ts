/**
 * A multi-document YAML file from typed objects: keys sorted (the output changes only with behaviour),
 * YAML 1.1 quoting (the Kubernetes tools read YAML 1.1: "true" and "on" stay strings), and comments set
 * on the document model, never spliced into the text. Each comment entry is one line whatever the
 * values in it. Pure.
 */
import { Document, isMap, isScalar, visit } from 'yaml';
import { portableYamlOptions, sortKeys } from '../../shared/serialize.ts';
import { oneLine } from '../quote.ts';
import type { KubernetesDocument } from './document.ts';

/** Keys whose value is a file mode: printed in decimal, which YAML 1.1 and 1.2 read alike, with the octal beside. */
const fileModeKeys = new Set(['defaultMode', 'mode']);

/** The file: `header` above the first document, then every document with its own comments. */
export function renderDocuments(header: readonly string[], documents: readonly KubernetesDocument[]): string {
  return documents
    .map((document, index) => {
      const comment =
        index === 0 ? [...header, ...(document.comment ? ['', ...document.comment] : [])] : document.comment;
      return renderDocument({ ...document, ...(comment ? { comment } : {}) });
    })
    .join('---\n');
}

function renderDocument(document: KubernetesDocument): string {
  const yaml = new Document(sortKeys(document.object), { version: portableYamlOptions.version });
  if (document.comment && yaml.contents) yaml.contents.commentBefore = commentText(document.comment);
  const data = yaml.get('data', true);
  if (document.dataComments && isMap(data)) {
    for (const pair of data.items) {
      const lines = isScalar(pair.key) ? document.dataComments[String(pair.key.value)] : undefined;
      if (lines && isScalar(pair.key)) pair.key.commentBefore = commentText(lines);
    }
  }
  visit(yaml, {
    Pair(_, pair) {
      if (isScalar(pair.key) && fileModeKeys.has(String(pair.key.value)) && isScalar(pair.value)) {
        const mode = pair.value.value;
        if (typeof mode === 'number') pair.value.comment = ` ${mode.toString(8).padStart(4, '0')} in octal`;
      }
    },
  });
  return yaml.toString({ lineWidth: portableYamlOptions.lineWidth });
}

/** Comment text as the yaml package prints it: `#` and this, per line; an empty entry is an empty line. */
function commentText(lines: readonly string[]): string {
  return lines.map((line) => (line === '' ? '' : ` ${oneLine(line)}`)).join('\n');
}
