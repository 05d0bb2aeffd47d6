/**
 * Text outputs (scripts, guides) rendered from Handlebars templates under templates/. Strict mode: a
 * template that names a missing field fails instead of printing nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Handlebars from 'handlebars';
import { RuntimeFailure } from '../shared/errors.ts';
import {
  markdownCode,
  markdownText,
  oneLine,
  pythonQuote,
  shellDoubleQuoted,
  shellQuote,
  shellVariableOr,
  shellWordWith,
  sqlIdentifier,
} from './quote.ts';
import { checkVariables } from './verification.ts';

const handlebars = Handlebars.create();
handlebars.registerHelper('eq', (a: unknown, b: unknown) => a === b);
handlebars.registerHelper('join', (items: unknown[], separator: unknown) =>
  items.join(typeof separator === 'string' ? separator : ', '),
);
// Quoting for the language a value lands in (src/compile/quote.ts). Templates render no manifest value
// without one of these; test/compile/template-audit.test.ts holds them to it.
const text = (value: unknown): string => {
  if (typeof value !== 'string' && typeof value !== 'number') throw new Error(`expected text, got ${typeof value}`);
  return String(value);
};
handlebars.registerHelper('shq', (value: unknown) => shellQuote(text(value)));
handlebars.registerHelper('concat', (...args: unknown[]) => args.slice(0, -1).map(text).join(''));
handlebars.registerHelper('shwords', (words: unknown) => {
  if (!Array.isArray(words)) throw new Error('expected a list of command words');
  return words.map((word) => shellQuote(text(word))).join(' ');
});
// Command words whose {host}, {port}, {name} and {ca} become double-quoted shell variables.
handlebars.registerHelper('shargs', (words: unknown) => {
  if (!Array.isArray(words)) throw new Error('expected a list of command words');
  return words.map((word) => shellWordWith(text(word), checkVariables)).join(' ');
});
handlebars.registerHelper('pyq', (value: unknown) => pythonQuote(text(value)));
handlebars.registerHelper('comment', (value: unknown) => oneLine(text(value)));
handlebars.registerHelper('md', (value: unknown) => markdownText(text(value)));
handlebars.registerHelper('code', (value: unknown) => markdownCode(text(value)));
handlebars.registerHelper('cell', (value: unknown) => markdownCode(text(value), true));
handlebars.registerHelper('shdq', (value: unknown) => shellDoubleQuoted(text(value)));
handlebars.registerHelper('shor', (name: unknown, fallback: unknown) => shellVariableOr(text(name), Number(fallback)));
handlebars.registerHelper('sqlid', (value: unknown) => sqlIdentifier(text(value)));
handlebars.registerHelper('int', (value: unknown) => {
  if (!Number.isSafeInteger(value)) throw new Error(`expected a whole number, got ${String(value)}`);
  return String(value);
});

const compiled = new Map<string, Handlebars.TemplateDelegate>();

/** templates/ of this package, found from this module's location (source tree or bundle). */
export function templatesDirectory(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'templates');
    if (existsSync(join(candidate, 'tickets.sh.hbs'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir)
      throw new RuntimeFailure('TEMPLATES_MISSING', 'templates/ not found beside the Portal package', {
        hint: 'install Portal again: its package is incomplete',
      });
    dir = parent;
  }
}

/** Templates included in others with {{> name}}, in the context of the one that includes them. */
const partials = [
  'tcp_check.py.hbs',
  'guide-cloudformation.md.hbs',
  'guide-compose.md.hbs',
  'guide-kubernetes.md.hbs',
  'guide-systemd.md.hbs',
  'guide-terminal.md.hbs',
  'guide-verify.md.hbs',
];

export function renderTemplate(name: string, context: object): string {
  let template = compiled.get(name);
  if (!template) {
    for (const partial of partials) {
      handlebars.registerPartial(
        partial.replace(/\..*$/, ''),
        readFileSync(join(templatesDirectory(), partial), 'utf8'),
      );
    }
    const text = readFileSync(join(templatesDirectory(), name), 'utf8');
    template = handlebars.compile(text, { noEscape: true, strict: true });
    compiled.set(name, template);
  }
  return template(context);
}
