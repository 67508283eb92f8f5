/** Where progress goes: stderr, so stdout carries only the result. */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

const BAR_WIDTH = 20;

export interface ProgressReporter {
  update(done: number, total: number, slug: string): void;
  /** Ends a redrawn bar with a newline (call before printing anything else). */
  finish(): void;
}

/**
 * On a terminal, one line redrawn in place: `[########------------] 12/30 dashboards  sales`.
 * Anywhere else (a pipe, a log file, a test), one plain line per dashboard.
 */
export function progressReporter(stream: ProgressStream): ProgressReporter {
  let drawn = false;
  return {
    update(done, total, slug) {
      const count = `${done}/${total} dashboards  ${slug}`;
      if (!stream.isTTY) {
        stream.write(`${count}\n`);
        return;
      }
      const filled = total === 0 ? BAR_WIDTH : Math.round((done / total) * BAR_WIDTH);
      const line = `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${count}`;
      const width = stream.columns ?? 80;
      // \r back to the start, then clear to the end of line so a shorter slug leaves nothing behind.
      stream.write(`\r${line.slice(0, Math.max(width - 1, 10))}\x1b[K`);
      drawn = true;
    },
    finish() {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}
