import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'memberships' })
export class MembershipEntity {
  @PrimaryColumn({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  @PrimaryColumn({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @Column({ type: 'text' })
  role!: 'admin' | 'member';
}
