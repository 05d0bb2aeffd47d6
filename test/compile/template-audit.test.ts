/**
 * Every value a template renders goes through the quoting helper of the language it lands in
 * (src/compile/quote.ts): a bare {{name}} in a script, a Python file or a guide fails this test.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { templatesDirectory } from '../../src/compile/templates.ts';

/** Helpers that quote (or refuse) a value for its target, by template kind. */
const quotingHelpers: Readonly<Record<string, readonly string[]>> = {
  sh: ['shq', 'shdq', 'shor', 'shwords', 'shargs', 'comment', 'int', 'sqlid'],
  py: ['pyq', 'comment', 'int'],
  md: ['md', 'code', 'cell', 'shq', 'shdq', 'shwords', 'shargs', 'comment', 'int', 'sqlid'],
};

// Blocks, and partials: templates of fixed text, audited themselves.
const blocks = /^(#if|#unless|#each|\/if|\/unless|\/each|else|>)(\b|\s)/;

function kindOf(name: string): string {
  if (name.endsWith('.sh.hbs')) return 'sh';
  if (name.endsWith('.py.hbs')) return 'py';
  if (name.endsWith('.md.hbs')) return 'md';
  throw new Error(`no quoting rule for templates/${name}`);
}

describe('templates render no value unquoted', () => {
  const names = readdirSync(templatesDirectory()).filter((name) => name.endsWith('.hbs'));

  it('covers every template', () => {
    assert.deepEqual(names.sort(), [
      'README.md.hbs',
      'boot.sh.hbs',
      'control-plane-cloudformation.md.hbs',
      'control-plane-compose.md.hbs',
      'control-plane-controller.sh.hbs',
      'control-plane-kubernetes.md.hbs',
      'control-plane-relay.sh.hbs',
      'control-plane.md.hbs',
      'guide-cloudformation.md.hbs',
      'guide-compose.md.hbs',
      'guide-kubernetes.md.hbs',
      'guide-systemd.md.hbs',
      'guide-terminal.md.hbs',
      'guide-verify.md.hbs',
      'status-metric.py.hbs',
      'tcp_check.py.hbs',
      'tickets.sh.hbs',
      'webhook_receiver.py.hbs',
    ]);
  });

  for (const name of names) {
    it(`${name}: every {{…}} is a block or a quoting helper for its language`, () => {
      const text = readFileSync(join(templatesDirectory(), name), 'utf8');
      assert.ok(!text.includes('{{{'), 'no triple-stash: it renders raw text');
      const allowed = quotingHelpers[kindOf(name)] as readonly string[];
      const bare: string[] = [];
      for (const match of text.matchAll(/\{\{~?\s*([^}]*?)\s*~?\}\}/g)) {
        const expression = match[1] as string;
        if (blocks.test(expression)) continue;
        const helper = expression.split(/\s+/)[0] as string;
        if (!allowed.includes(helper)) bare.push(match[0]);
      }
      assert.deepEqual(bare, []);
    });
  }
});
