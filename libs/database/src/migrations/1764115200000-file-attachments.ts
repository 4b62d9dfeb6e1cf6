import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { columnTypes } from './column-types';

/**
 * File attachments. A row is written before its blob, so every blob in storage is named by a row,
 * and every row says when its blob is to be destroyed (`destroy_at`): an upload still being
 * received a day after it started (its process died), an attached file when its push's day window
 * ends, or sooner (the grace after the last view). The sweep destroys what is due by that index.
 */
export class FileAttachments1764115200000 implements MigrationInterface {
  name = 'FileAttachments1764115200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const t = columnTypes(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'file_attachments',
        columns: [
          t.id(),
          // Null while the upload is being received.
          { name: 'push_id', type: 'int', isNullable: true },
          // Random, URL-safe: the object's name in storage.
          { name: 'blob_key', type: 'varchar', length: '64' },
          // Filename and content type, sealed together with the master key ring.
          { name: 'meta', type: t.largeBlob },
          // The stream cipher's key and nonce prefix, sealed with the master key ring.
          { name: 'stream_key', type: t.largeBlob },
          { name: 'size', type: 'bigint', default: 0 },
          { name: 'created_at', type: 'bigint' },
          { name: 'destroy_at', type: 'bigint' },
        ],
        indices: [
          { name: 'ux_file_attachments_blob_key', columnNames: ['blob_key'], isUnique: true },
          { name: 'ix_file_attachments_push_id', columnNames: ['push_id'] },
          { name: 'ix_file_attachments_destroy_at', columnNames: ['destroy_at'] },
        ],
        foreignKeys: [
          {
            name: 'fk_file_attachments_push',
            columnNames: ['push_id'],
            referencedTableName: 'pushes',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('file_attachments');
  }
}
