/**
 * Text outputs (scripts, guides) rendered from Handlebars templates under templates/. Strict mode: a
 * template that names a missing field fails instead of printing nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Handlebars from 'handlebars';

const handlebars = Handlebars.create();
handlebars.registerHelper('eq', (a: unknown, b: unknown) => a === b);
handlebars.registerHelper('join', (items: unknown[], separator: unknown) => items.join(typeof separator === 'string' ? separator : ', '));

const compiled = new Map<string, Handlebars.TemplateDelegate>();

/** templates/ of this package, found from this module's location (source tree or bundle). */
export function templatesDirectory(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'templates');
    if (existsSync(join(candidate, 'tickets.sh.hbs'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('templates/ not found beside the Portal package');
    dir = parent;
  }
}

export function renderTemplate(name: string, context: object): string {
  let template = compiled.get(name);
  if (!template) {
    const text = readFileSync(join(templatesDirectory(), name), 'utf8');
    template = handlebars.compile(text, { noEscape: true, strict: true });
    compiled.set(name, template);
  }
  return template(context);
}
