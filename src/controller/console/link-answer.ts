import { InputError } from '../../shared/errors.ts';

/** The answer to `console-link`: the link issued, or CONSOLE_OFF where this controller serves no console. */
export async function consoleLinkAnswer(
  issued: Promise<{ link: string; expiresAt: number }> | undefined,
): Promise<{ link: string; expiresAt: string }> {
  if (!issued)
    throw new InputError('CONSOLE_OFF', 'this controller serves no web console', {
      hint: 'start it with --console 127.0.0.1:0 (portal controller start), or ask a replica that serves one',
    });
  const { link, expiresAt } = await issued;
  return { link, expiresAt: new Date(expiresAt).toISOString() };
}
