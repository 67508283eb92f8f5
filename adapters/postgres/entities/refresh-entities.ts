import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'refresh_schedules' })
export class RefreshScheduleEntity {
  @PrimaryColumn({ name: 'dashboard_id', type: 'uuid' })
  dashboardId!: string;

  @Column({ name: 'cron', type: 'text' })
  cron!: string;

  @Column({ name: 'timezone', type: 'text' })
  timezone!: string;

  @Column({ name: 'next_run_at', type: 'timestamptz', nullable: true })
  nextRunAt!: Date | null;
}

@Entity({ name: 'refresh_runs' })
export class RefreshRunEntity {
  @PrimaryColumn({ name: 'id', type: 'uuid' })
  id!: string;

  @Column({ name: 'dashboard_id', type: 'uuid' })
  dashboardId!: string;

  @Column({ name: 'trigger', type: 'text' })
  trigger!: string;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt!: Date;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs!: number;

  @Column({ name: 'outcome', type: 'text' })
  outcome!: string;

  @Column({ name: 'rows', type: 'integer' })
  rows!: number;

  @Column({ name: 'error', type: 'text', nullable: true })
  error!: string | null;
}

/** The last good refresh's files per dashboard, served instead of the version's while it matches the current version. */
@Entity({ name: 'dashboard_live_renders' })
export class DashboardLiveRenderEntity {
  @PrimaryColumn({ name: 'dashboard_id', type: 'uuid' })
  dashboardId!: string;

  @Column({ name: 'version_id', type: 'uuid' })
  versionId!: string;

  @Column({ name: 'files', type: 'jsonb' })
  files!: object;

  @Column({ name: 'rendered_at', type: 'timestamptz' })
  renderedAt!: Date;
}
