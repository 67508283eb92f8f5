import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../shells/logger.js';

/** A logger at `level` (`info` unless told) whose lines are parsed into `lines` as they are written. */
export function captureLogs(level = 'info'): { lines: Array<Record<string, any>>; logger: Logger } {
  const lines: Array<Record<string, any>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { lines, logger: createLogger({ logLevel: level }, stream) };
}
