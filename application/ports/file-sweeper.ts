export const FileSweeper = Symbol.for('FileSweeper');

/**
 * Frees the bytes of files nothing refers to any more. Files are content-addressed and shared, so
 * pruning a version, deleting a dashboard or replacing a live render cannot drop them on the spot;
 * a periodic sweep removes whatever no version and no live render names.
 */
export interface FileSweeper {
  /**
   * Deletes unreferenced files last stored more than `graceSeconds` ago (the grace covers writes that
   * have stored bytes but not yet recorded the manifest naming them). Returns how many went.
   */
  sweep(graceSeconds: number): Promise<number>;
}

/** An hour: far longer than any publish or refresh takes between storing bytes and recording them. */
export const FILE_SWEEP_GRACE_SECONDS = 3600;
