import { Column, Entity, PrimaryColumn } from 'typeorm';

/** connections: a warehouse URL sealed at rest, with its immutable (owner, workspace) scope. */
@Entity({ name: 'connections' })
export class ConnectionEntity {
  @PrimaryColumn({ name: 'id', type: 'uuid' })
  id!: string;

  @Column({ name: 'owner_user_id', type: 'text' })
  ownerUserId!: string;

  @Column({ name: 'workspace_id', type: 'text', nullable: true })
  workspaceId!: string | null;

  @Column({ name: 'label', type: 'text' })
  label!: string;

  @Column({ name: 'kind', type: 'text' })
  kind!: string;

  @Column({ name: 'url_sealed', type: 'text' })
  urlSealed!: string;

  @Column({ name: 'status', type: 'text' })
  status!: string;

  @Column({ name: 'last_tested_at', type: 'timestamptz', nullable: true })
  lastTestedAt!: Date | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
