/**
 * A log file that cannot fill a disk: once it holds `limitBytes`, it becomes `<path>.1` (replacing the
 * one before) and a new file starts, so the two together stay under twice the limit. For a process
 * that runs in the background with nobody reading its standard error (the embedded controller):
 * processes under a service manager log to standard error, which the journal keeps and bounds.
 */
import { closeSync, fstatSync, openSync, renameSync, statSync, writeSync } from 'node:fs';

/** Size at which a bounded log file is rotated. @default 10 MiB */
export const defaultLogLimitBytes = 10 * 1024 * 1024;

/** The file that holds the lines before the current file's. */
export const previousLogFile = (path: string) => `${path}.1`;

export class BoundedLogFile {
  #fd: number;
  #size: number;

  constructor(
    readonly path: string,
    readonly limitBytes = defaultLogLimitBytes,
  ) {
    this.#fd = openSync(path, 'a', 0o600);
    this.#size = fstatSync(this.#fd).size;
  }

  /** Appends `text`; rotates first when it would take the file past the limit. */
  write(text: string): void {
    const bytes = Buffer.from(text);
    if (this.#size > 0 && this.#size + bytes.length > this.limitBytes) this.#rotate();
    writeSync(this.#fd, bytes);
    this.#size += bytes.length;
  }

  close(): void {
    closeSync(this.#fd);
  }

  #rotate(): void {
    try {
      renameSync(this.path, previousLogFile(this.path));
    } catch (error) {
      // Removed meanwhile (by hand, or a cleaner): there is nothing to keep, and a new file starts.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    // Opened before the old one is closed, so that a failure leaves this object as it was.
    const fd = openSync(this.path, 'a', 0o600);
    closeSync(this.#fd);
    this.#fd = fd;
    this.#size = 0;
  }
}

/** Rotates the log at `path` now if it holds `limitBytes` or more (before a new process appends to it). */
export function rotateIfFull(path: string, limitBytes = defaultLogLimitBytes): void {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return;
  }
  if (size >= limitBytes) renameSync(path, previousLogFile(path));
}

/**
 * Sends everything this process writes to standard error (its log lines, warnings, the one-line
 * failure) to `log` instead. A write the file refuses (a full disk, a directory removed) does not
 * throw into the code that logged, which may be a socket handler: from then on the lines go to the
 * real standard error, after one line that says why.
 */
export function redirectStandardError(log: BoundedLogFile, stream: NodeJS.WritableStream = process.stderr): void {
  // Put back as the stream's own method and called on it: no binding needed.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const direct = stream.write;
  const write = (
    chunk: string | Uint8Array,
    encodingOrCallback?: BufferEncoding | ((error?: Error | null) => void),
    callback?: (error?: Error | null) => void,
  ): boolean => {
    const encoding = typeof encodingOrCallback === 'string' ? encodingOrCallback : 'utf8';
    const done = typeof encodingOrCallback === 'function' ? encodingOrCallback : callback;
    const text =
      typeof chunk === 'string' ? Buffer.from(chunk, encoding).toString('utf8') : Buffer.from(chunk).toString('utf8');
    try {
      log.write(text);
    } catch (error) {
      stream.write = direct;
      // The real standard error may fail as well (the same full disk): that must not end the process either.
      stream.on('error', () => undefined);
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      stream.write(
        `${new Date().toISOString()} WARN cannot write the log file ${log.path} (${reason}): ` +
          `logging to standard error from now on\n`,
      );
      return done ? stream.write(text, done) : stream.write(text);
    }
    if (done) process.nextTick(done);
    return true;
  };
  stream.write = write;
}
