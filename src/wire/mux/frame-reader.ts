/**
 * Cuts what a session's link reads into frames (src/wire/protocol/mux-frame.ts), however the bytes
 * arrive: a data body goes on piece by piece as it comes, a control body once it is whole. No I/O:
 * the sink decides what each frame means, and the first problem stops the reading.
 */
import { decodeHeader, frameHeaderSize, FrameType, type FrameHeader } from '../protocol/mux-frame.ts';

export interface FrameSink {
  /** Whether frames are still wanted: false once the session is over, even mid-chunk. */
  reading(): boolean;
  /** Checks a header just read (see checkHeader); a problem stops the reading. */
  checkHeader(header: FrameHeader): string | undefined;
  /** A piece of a data frame's body (a frame may come in several). */
  data(id: number, piece: Buffer): void;
  /** A whole control frame (an empty body for frames that have none). */
  control(type: FrameType, id: number, body: Buffer): void;
}

const empty = Buffer.alloc(0);

export class FrameReader {
  private readonly headerBytes = Buffer.alloc(frameHeaderSize);
  private headerFill = 0;
  private readonly header: FrameHeader = { type: 0, id: 0, length: 0 };
  private bodyLeft = 0;
  private readonly control: Buffer[] = [];
  /** The problem that stopped the reading, if one did. */
  problem: string | undefined;

  constructor(private readonly sink: FrameSink) {}

  /** Reads one chunk of the link; the problem that stops the reading, if one does. */
  read(chunk: Buffer): string | undefined {
    let offset = 0;
    while (offset < chunk.length && this.problem === undefined && this.sink.reading()) {
      if (this.bodyLeft === 0 && this.headerFill < frameHeaderSize) {
        const take = Math.min(frameHeaderSize - this.headerFill, chunk.length - offset);
        chunk.copy(this.headerBytes, this.headerFill, offset, offset + take);
        this.headerFill += take;
        offset += take;
        if (this.headerFill < frameHeaderSize) break;
        decodeHeader(this.headerBytes, 0, this.header);
        this.problem = this.sink.checkHeader(this.header);
        if (this.problem !== undefined) break;
        this.bodyLeft = this.header.length;
        if (this.bodyLeft === 0) this.frameDone();
        continue;
      }
      const take = Math.min(this.bodyLeft, chunk.length - offset);
      const piece = chunk.subarray(offset, offset + take);
      offset += take;
      this.bodyLeft -= take;
      // A small part of a larger chunk is copied: kept waiting for a slow reader, a slice would keep
      // the whole chunk, and the window would no longer bound what a stream holds. A control body is
      // read at once and never kept: its slice will do.
      if (this.header.type === FrameType.data)
        this.sink.data(this.header.id, take * 2 < chunk.length ? Buffer.from(piece) : piece);
      else this.control.push(piece);
      if (this.bodyLeft === 0) this.frameDone();
    }
    return this.problem;
  }

  private frameDone(): void {
    const { type, id } = this.header;
    this.headerFill = 0;
    if (type === FrameType.data) {
      // An empty data frame carries nothing, but still belongs to its stream.
      if (this.header.length === 0) this.sink.data(id, empty);
      return;
    }
    const { control } = this;
    const body = control.length === 0 ? empty : control.length === 1 ? (control[0] as Buffer) : Buffer.concat(control);
    control.length = 0;
    this.sink.control(type as FrameType, id, body);
  }
}
