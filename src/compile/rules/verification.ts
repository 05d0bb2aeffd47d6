/**
 * Verifications that must fit their portal: a model runtime is reached over HTTPS, a command names its
 * program first and only the placeholders that exist ({name} and {ca} only where the inlet serves TLS),
 * and a client container is for command verifications.
 */
import { portalSources, type PortalSource } from '../portals.ts';
import { envPlaceholder, reservedVariables, secretHint, secretInWord } from './command-secrets.ts';
import type { Rule, RuleViolation } from '../rule-types.ts';

/** The words a command may hold between braces, filled in when it runs. */
export const commandPlaceholders = ['host', 'port', 'name', 'ca'] as const;
const tlsOnly = new Set(['name', 'ca']);

const invokeModelTls: Rule = (manifest, sound) =>
  portalSources(manifest).flatMap((portal) => {
    if (!sound.whole(portal.pointers.verification, `${portal.pointers.inlet}/tls`)) return [];
    if (portal.verification?.kind !== 'invoke-model' || portal.inlet.tls === true) return [];
    return [
      {
        pointer: `${portal.pointers.verification}/kind`,
        message: 'the model runtime is reached over HTTPS; invoke-model verification needs inlet.tls: true',
      },
    ];
  });

function commandViolations(portal: PortalSource, words: readonly string[]): RuleViolation[] {
  const found: RuleViolation[] = [];
  const base = `${portal.pointers.verification}/run`;
  const program = words[0] ?? '';
  if (!/^[A-Za-z0-9_.+/][A-Za-z0-9_.+/-]*$/.test(program)) {
    found.push({
      pointer: `${base}/0`,
      message: 'the first word is the program to run, such as redis-cli: letters, digits and ._+/- only',
    });
  }
  for (const [index, word] of words.entries()) {
    const secret = secretInWord(words, index);
    if (secret)
      found.push({
        pointer: `${base}/${index}`,
        message: `${secret} would be written into tickets.sh and README.md for anyone who reads them; ${secretHint}`,
      });
    for (const match of word.matchAll(/\{env:([^}]*)\}/g)) {
      if (!/^[A-Z_][A-Z0-9_]*$/.test(match[1] as string))
        found.push({
          pointer: `${base}/${index}`,
          message:
            `{env:${match[1]}} is not an environment variable; ` +
            'write {env:NAME} with NAME in upper case, digits and _',
        });
    }
    for (const match of word.matchAll(envPlaceholder)) {
      const name = match[1] as string;
      if (reservedVariables.has(name) || name.startsWith('INLET_PORT_'))
        found.push({
          pointer: `${base}/${index}`,
          message: `{env:${name}} names a variable tickets.sh sets itself; choose another name`,
        });
    }
    for (const match of word.matchAll(/\{([a-z]+)\}/g)) {
      const name = match[1] as string;
      if (!(commandPlaceholders as readonly string[]).includes(name)) {
        found.push({
          pointer: `${base}/${index}`,
          message: `{${name}} is not a placeholder; use {host}, {port}, {name}, {ca} or {env:NAME}`,
        });
      } else if (tlsOnly.has(name) && portal.inlet.tls !== true) {
        found.push({
          pointer: `${base}/${index}`,
          message: `{${name}} is for an inlet that serves TLS; this one does not (inlet.tls is false)`,
        });
      }
    }
  }
  return found;
}

const commandWords: Rule = (manifest, sound) =>
  portalSources(manifest).flatMap((portal) => {
    if (!sound.whole(portal.pointers.verification, `${portal.pointers.inlet}/tls`)) return [];
    const verification = portal.verification;
    return verification?.kind === 'command' ? commandViolations(portal, verification.run) : [];
  });

const clientContainer: Rule = (manifest, sound) => {
  if (!sound.whole('/container/client') || manifest.container?.client === undefined) return [];
  const portals = portalSources(manifest);
  if (!portals.every((portal) => sound.whole(portal.pointers.verification))) return [];
  if (portals.some((portal) => portal.verification?.kind === 'command')) return [];
  return [
    {
      pointer: '/container/client',
      at: 'key',
      message: 'the client container runs command verifications, and no portal has one; remove client',
    },
  ];
};

export const verificationRules: readonly Rule[] = [invokeModelTls, commandWords, clientContainer];
