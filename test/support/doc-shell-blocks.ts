// The shell blocks of a Markdown document and the command lines they show, each with the line of the
// document it starts on, so that a check can name file:line.

/** Fence languages whose every line is a command (comments and blank lines aside). */
const scriptLanguages = new Set(['sh', 'bash', 'shell', 'zsh']);
/** Fence languages whose commands are the lines after a `$ ` prompt, the rest being output. */
const transcriptLanguages = new Set(['console', 'shell-session', '']);

/**
 * Whether a block tells the reader to run its commands (a shell script or a console session), rather
 * than record a session's output on some machine in an untagged block.
 */
export function isInstruction(block: ShellBlock): boolean {
  return block.language !== '';
}

export interface CommandLine {
  /** Continuations joined, the prompt left out, placeholders such as `<id>` made words. */
  readonly text: string;
  /** 1-based line of the document where the command starts. */
  readonly line: number;
}

export interface ShellBlock {
  readonly language: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The paragraph right above the opening fence, where a document names the test that runs the block. */
  readonly introduction: string;
  readonly commands: readonly CommandLine[];
}

/** The word a placeholder such as `<id>` or `<the node's pid>` stands for when the line is parsed. */
export const placeholderWord = 'PLACEHOLDER';

/** `<id>`, `<member id>`: angle brackets around a name, never a redirection (`< file`, `2>&1`). */
const placeholder = /<([A-Za-z][A-Za-z0-9 _'.-]*)>/g;

function commandsOf(language: string, body: readonly string[], firstLine: number): CommandLine[] {
  const script = scriptLanguages.has(language);
  const commands: CommandLine[] = [];
  let heredoc: string | undefined;
  for (let at = 0; at < body.length; at++) {
    const raw = body[at] as string;
    if (heredoc !== undefined) {
      if (raw.trim() === heredoc) heredoc = undefined;
      continue;
    }
    let text = raw.trim();
    if (!script) {
      const prompt = /^\$ (.*)$/.exec(text);
      if (!prompt) continue;
      text = prompt[1] as string;
    }
    if (text === '' || text.startsWith('#')) continue;
    const start = at;
    while (text.endsWith('\\') && at + 1 < body.length) text = `${text.slice(0, -1)} ${(body[++at] as string).trim()}`;
    heredoc = /<<-?\s*['"]?([A-Za-z_]+)['"]?/.exec(text)?.[1];
    commands.push({ text: text.replace(placeholder, placeholderWord), line: firstLine + 1 + start });
  }
  return commands;
}

/** Every fenced block of a shell or transcript language, in order. */
export function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  for (let at = 0; at < lines.length; at++) {
    const fence = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[at] as string);
    if (!fence) continue;
    const marker = fence[2] as string;
    const language = (fence[3] as string).toLowerCase();
    let close = at + 1;
    while (close < lines.length && !(lines[close] as string).trim().startsWith(marker)) close++;
    if (scriptLanguages.has(language) || transcriptLanguages.has(language)) {
      let bottom = at;
      while (bottom > 0 && (lines[bottom - 1] as string).trim() === '') bottom--;
      let top = bottom;
      while (top > 0 && (lines[top - 1] as string).trim() !== '') top--;
      blocks.push({
        language,
        line: at + 1,
        introduction: lines.slice(top, bottom).join('\n'),
        commands: commandsOf(language, lines.slice(at + 1, close), at + 1),
      });
    }
    at = close;
  }
  return blocks;
}

/**
 * The test a block's introduction says runs it as written: "… runs these commands as written …
 * `test/….test.ts`", "run as written by `test/….test.ts`" or "`test/….test.ts` runs this block as
 * written".
 */
export function runAsWrittenBy(block: ShellBlock): string | undefined {
  const text = block.introduction.replace(/\s+/g, ' ');
  const test = '`(test\\/[\\w./-]+\\.test\\.ts)`';
  return (
    new RegExp(`\\bruns? (?:these commands |this block |them )?as written[^\`]*${test}`).exec(text)?.[1] ??
    new RegExp(`${test} runs? (?:these commands|this block|them) as written`).exec(text)?.[1]
  );
}
