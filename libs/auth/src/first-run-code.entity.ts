import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { epochMillis } from '@app/database';

/** A boot code logged at start-up while no account exists; stored hashed, so any replica accepts it. */
@Entity({ name: 'first_run_codes' })
@Index('ux_first_run_codes_code_hash', ['codeHash'], { unique: true })
export class FirstRunCodeEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'code_hash', type: 'varchar', length: 64 })
  codeHash!: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMillis })
  createdAt!: number;
}
