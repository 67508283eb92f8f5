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

/**
 * Bytes stored again are marked stored anew only when their mark is older than this, half the grace: a
 * file found with a fresher mark cannot reach the grace (and the sweep) while the transaction that found
 * it is open, and publishes of the same bytes do not queue on its row. Migration 1700000015200 writes the
 * same age into `dashpub_publish`.
 */
export const FILE_TOUCH_AGE_SECONDS = FILE_SWEEP_GRACE_SECONDS / 2;
