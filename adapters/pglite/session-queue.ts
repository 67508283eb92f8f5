import type { PGlite } from '@electric-sql/pglite';

interface Message {
  kind: 'message';
  connection: number;
  bytes: Uint8Array;
  onData: (data: Uint8Array) => void;
  resolve: (written: number) => void;
  reject: (error: unknown) => void;
}

interface Reset {
  kind: 'reset';
  connection: number;
  done: () => void;
}

/** Sync ends an extended-query exchange and discards a pending error; then roll back whatever is open. */
const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]);
const ROLLBACK = simpleQuery('ROLLBACK');

/**
 * Shares PGlite's single backend session among many client connections without mixing them up.
 *
 * pglite-socket's own queue interleaves connections message by message, which breaks the extended
 * protocol (one connection's Bind can land on another's Parse) whenever no transaction is open. Here a
 * connection keeps the session from its first message until an exchange ends (Sync, a simple Query, the
 * startup packet) and, while a transaction is open, until it ends. Other connections wait their turn;
 * a connection that goes away mid-exchange is reset (Sync + ROLLBACK) before anyone else runs.
 *
 * It has the shape pglite-socket's PGLiteSocketHandler expects of its `queryQueue`.
 */
export class SessionQueue {
  private holder: number | null = null;
  private readonly pending: Array<Message | Reset> = [];
  private pumping = false;

  constructor(private readonly db: PGlite) {}

  enqueue(connection: number, bytes: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.pending.push({ kind: 'message', connection, bytes, onData, resolve, reject });
      void this.pump();
    });
  }

  clearQueueForHandler(connection: number): void {
    for (let i = this.pending.length - 1; i >= 0; i--) {
      const item = this.pending[i];
      if (item.connection === connection && item.kind === 'message') {
        this.pending.splice(i, 1);
        item.reject(new Error('connection closed'));
      }
    }
  }

  async clearTransactionIfNeeded(connection: number): Promise<void> {
    if (this.holder !== connection) return;
    await new Promise<void>((done) => {
      this.pending.unshift({ kind: 'reset', connection, done });
      void this.pump();
    });
  }

  /** How many messages wait for the session (for tests and diagnostics). */
  get waiting(): number {
    return this.pending.length;
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (;;) {
        const index = this.holder === null ? (this.pending.length > 0 ? 0 : -1) : this.pending.findIndex((i) => i.connection === this.holder);
        if (index < 0) return;
        const [item] = this.pending.splice(index, 1);
        this.holder = item.connection;
        if (item.kind === 'reset') {
          await this.reset();
          this.holder = null;
          item.done();
          continue;
        }
        try {
          let written = 0;
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(item.bytes, {
              onRawData: (data) => {
                written += data.length;
                item.onData(data);
              },
            }),
          );
          if (endsExchange(item.bytes) && !this.db.isInTransaction()) this.holder = null;
          item.resolve(written);
        } catch (error) {
          // The handler closes the connection on a failure, and its close resets the session.
          item.reject(error);
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  private async reset(): Promise<void> {
    try {
      await this.db.runExclusive(async () => {
        await this.db.execProtocolRaw(SYNC);
        if (this.db.isInTransaction()) await this.db.execProtocolRaw(ROLLBACK);
      });
    } catch {
      // Nothing more can be done for a session that refuses even a rollback; the next client will see.
    }
  }
}

/** Sync ('S'), a simple Query ('Q'), Terminate ('X') or the startup packet (no type byte: it starts with a zero length byte). */
function endsExchange(bytes: Uint8Array): boolean {
  const type = bytes[0];
  return type === 0x53 || type === 0x51 || type === 0x58 || type === 0x00;
}

function simpleQuery(sql: string): Uint8Array {
  const text = Buffer.from(`${sql}\0`, 'utf8');
  const message = Buffer.alloc(5 + text.length);
  message.write('Q', 0, 'ascii');
  message.writeInt32BE(4 + text.length, 1);
  text.copy(message, 5);
  return new Uint8Array(message);
}
