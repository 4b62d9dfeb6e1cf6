import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { epochMillis } from '@app/database';

/** One save of the custom CSS; the newest is served (see CustomStylesheets). */
@Entity({ name: 'custom_stylesheets' })
export class CustomStylesheetEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'text' })
  css!: string;

  /** The administrator who saved it. */
  @Column({ name: 'saved_by', type: 'varchar', length: 255 })
  savedBy!: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMillis })
  createdAt!: number;
}
