// The relative links of a Markdown document and the anchors its headings make, as GitHub renders
// them, so that a test can tell a link that leads nowhere.

export interface MarkdownLink {
  /** The target as written: `docs/operating.md#metrics-and-health`, `#install`. */
  readonly target: string;
  /** 1-based line of the document. */
  readonly line: number;
}

/** The text outside fenced code blocks, with each fenced line blanked so line numbers hold. */
function prose(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker.startsWith(fence)) fence = undefined;
      return '';
    }
    if (marker !== undefined) {
      fence = marker;
      return '';
    }
    return line;
  });
}

/** Every link that is not to another site or a mail address: `[text](target)`, code spans aside. */
export function relativeLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  prose(markdown).forEach((line, index) => {
    const outsideCode = line.replace(/`[^`]*`/g, '');
    for (const match of outsideCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1] as string;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      links.push({ target, line: index + 1 });
    }
  });
  return links;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces made dashes. */
export function headingSlug(heading: string): string {
  return heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a document's headings make; a repeated heading gets -1, -2, … as GitHub numbers it. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const made = new Set<string>();
  for (const line of prose(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = headingSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    made.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return made;
}
