import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Manifest } from '../../../application/ports/dashboard-store.js';

@Entity({ name: 'dashboard_versions' })
export class DashboardVersionEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'dashboard_id', type: 'uuid' })
  dashboardId!: string;

  @Column({ type: 'integer' })
  seq!: number;

  @Column({ type: 'text', nullable: true })
  name!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'created_by', type: 'uuid' })
  createdBy!: string;

  @Column({ type: 'jsonb' })
  files!: Manifest;

  @Column({ type: 'jsonb', nullable: true })
  spec!: unknown | null;
}
