/** Durations from flags and environment variables, refused in the same words wherever they are read. */
import { durationSyntax, readDuration, type DurationRange } from '../shared/duration.ts';
import { InputError, printable } from '../shared/errors.ts';

/** The milliseconds of `--flag text`, or an InputError naming the flag, the units and the bounds. */
export function durationFlag(flag: string, text: string, range: DurationRange): number {
  return read(`${flag} ${text}`, 'BAD_FLAG', text, range);
}

/** The milliseconds of `NAME=text` from the environment, or an InputError worded as for a flag. */
export function durationVariable(name: string, text: string, range: DurationRange): number {
  return read(`${name}=${text}`, 'BAD_ENVIRONMENT', text, range);
}

function read(subject: string, code: 'BAD_FLAG' | 'BAD_ENVIRONMENT', text: string, range: DurationRange): number {
  const reading = readDuration(text, range);
  if (reading.ok) return reading.ms;
  throw new InputError(code, printable(`${subject} ${reading.reason}`), { hint: `give ${durationSyntax(range)}` });
}
