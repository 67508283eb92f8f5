import { Column, Entity, PrimaryColumn } from 'typeorm';

/** dashboard_views_daily: one row per dashboard and UTC day; only a count, never who viewed. */
@Entity({ name: 'dashboard_views_daily' })
export class DashboardViewsDailyEntity {
  @PrimaryColumn({ name: 'dashboard_id', type: 'uuid' })
  dashboardId!: string;

  @PrimaryColumn({ name: 'day', type: 'date' })
  day!: string;

  @Column({ name: 'views', type: 'bigint' })
  views!: string;
}
