import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'dashboard_aliases' })
export class DashboardAliasEntity {
  @PrimaryColumn({ name: 'owner_id', type: 'uuid' })
  ownerId!: string;

  @PrimaryColumn({ type: 'text' })
  slug!: string;

  @Column({ name: 'owner_kind', type: 'text' })
  ownerKind!: 'user' | 'workspace';

  @Column({ name: 'dashboard_id', type: 'uuid' })
  dashboardId!: string;
}
