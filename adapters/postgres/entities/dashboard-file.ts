import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Content-addressed file bytes, shared by every version that holds the same content. */
@Entity({ name: 'files' })
export class FileEntity {
  @PrimaryColumn({ type: 'text' })
  sha256!: string;

  @Column({ type: 'bytea' })
  bytes!: Buffer;

  @Column({ type: 'integer' })
  size!: number;

  @Column({ name: 'stored_at', type: 'timestamptz', default: () => 'now()' })
  storedAt!: Date;
}
