import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'account_identities' })
export class AccountIdentityEntity {
  @PrimaryColumn({ type: 'text' })
  issuer!: string;

  @PrimaryColumn({ type: 'text' })
  subject!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
