import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SETTINGS, Settings } from '@app/config';
import { MetricsModule } from '@app/metrics';
import { BlobStore } from './blob-store';
import { DiskBlobStore } from './disk-blob-store';
import { FileAttachmentEntity } from './file-attachment.entity';
import { FileAttachmentsRepository } from './file-attachments.repository';
import { FileAttachments } from './file-attachments.service';
import { S3BlobStore } from './s3-blob-store';

@Module({
  imports: [TypeOrmModule.forFeature([FileAttachmentEntity]), MetricsModule],
  providers: [
    FileAttachmentsRepository,
    FileAttachments,
    {
      provide: BlobStore,
      inject: [SETTINGS],
      useFactory: ({ files: { storage } }: Settings): BlobStore => (storage.type === 'local' ? new DiskBlobStore(storage.dir) : new S3BlobStore(storage)),
    },
  ],
  exports: [FileAttachments],
})
export class FilesModule {}
