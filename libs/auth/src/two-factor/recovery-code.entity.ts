import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { epochMillis } from '@app/database';

/** A single-use recovery code: only its HMAC (see RecoveryCodes) is stored; using it deletes it. */
@Entity({ name: 'recovery_codes' })
@Index('ix_recovery_codes_user_id_code_hash', ['userId', 'codeHash'])
export class RecoveryCodeEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'user_id', type: 'int' })
  @ForeignKey('users', { name: 'fk_recovery_codes_user', onDelete: 'CASCADE' })
  userId!: number;

  @Column({ name: 'code_hash', type: 'varchar', length: 64 })
  codeHash!: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMillis })
  createdAt!: number;
}
