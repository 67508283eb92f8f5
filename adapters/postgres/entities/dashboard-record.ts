import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'dashboards' })
export class DashboardEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'owner_kind', type: 'text' })
  ownerKind!: 'user' | 'workspace';

  @Column({ name: 'owner_id', type: 'uuid' })
  ownerId!: string;

  @Column({ type: 'text' })
  slug!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', array: true })
  tags!: string[];

  @Column({ type: 'text', nullable: true })
  chart!: string | null;

  @Column({ type: 'text' })
  visibility!: 'public' | 'private';

  @Column({ type: 'text' })
  connection!: string;

  @Column({ name: 'current_version_id', type: 'uuid' })
  currentVersionId!: string;

  @Column({ name: 'created_by', type: 'uuid' })
  createdBy!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
