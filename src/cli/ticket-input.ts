/** Reading an enrollment ticket from where a command line may point: a file, or standard input. */
import { readFile } from 'node:fs/promises';
import { InputError } from '../shared/errors.ts';

/** The ticket from a file, or from standard input for "-": one line, at most a few kilobytes. */
export async function readTicketFile(path: string): Promise<string> {
  let text: string;
  try {
    text = path === '-' ? await readStandardInput(16 * 1024) : await readFile(path, 'utf8');
  } catch (error) {
    throw new InputError(
      'TICKET_UNREADABLE',
      `cannot read the enrollment ticket from ${path === '-' ? 'standard input' : path}: ` +
        `${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      {
        hint: 'give the path of the .ticket file that portal project ticket wrote',
      },
    );
  }
  if (text.trim() === '') {
    throw new InputError('TICKET_EMPTY', `${path === '-' ? 'standard input' : path} holds no enrollment ticket`, {
      hint: 'write the ticket with portal project ticket ... > inlet.ticket',
    });
  }
  return text.trim();
}

/** Standard input whole, refused past `limit` bytes. */
export async function readStandardInput(limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of process.stdin) {
    length += (chunk as Buffer).length;
    if (length > limit) throw new Error(`more than ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export interface TicketFlags {
  readonly enrollmentTicket?: string;
  readonly enrollmentTicketFile?: string;
}

/**
 * The ticket given by --enrollment-ticket, --enrollment-ticket-file, the configuration (a container's)
 * or ENROLLMENT_TICKET, the first that is not blank, trimmed; both flags at once are refused.
 */
export async function ticketFromFlags(flags: TicketFlags, fromConfiguration?: string): Promise<string | undefined> {
  if (flags.enrollmentTicket && flags.enrollmentTicketFile) {
    throw new InputError(
      'BAD_FLAG',
      '--enrollment-ticket and --enrollment-ticket-file are two ways to give the ticket',
      { hint: 'give one of them (--enrollment-ticket-file keeps the ticket out of ps)' },
    );
  }
  const fromFile = flags.enrollmentTicketFile ? await readTicketFile(flags.enrollmentTicketFile) : undefined;
  return [flags.enrollmentTicket, fromFile, fromConfiguration, process.env.ENROLLMENT_TICKET]
    .find((candidate) => candidate !== undefined && candidate.trim() !== '')
    ?.trim();
}
