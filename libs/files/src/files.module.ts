import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SETTINGS, Settings } from '@app/config';
import { MetricsModule } from '@app/metrics';
import { BlobStore } from './blob-store';
import { DiskBlobStore } from './disk-blob-store';
import { FileAttachmentEntity } from './file-attachment.entity';
import { FileAttachmentsRepository } from './file-attachments.repository';
import { FileAttachments } from './file-attachments.service';
import { MultipartUploads } from './multipart-uploads';

@Module({
  imports: [TypeOrmModule.forFeature([FileAttachmentEntity]), MetricsModule],
  providers: [
    FileAttachmentsRepository,
    FileAttachments,
    MultipartUploads,
    {
      provide: BlobStore,
      inject: [SETTINGS],
      // The AWS SDK takes ~170 ms and ~20 MB to load: only instances that use S3 pay for it.
      useFactory: async ({ files: { storage } }: Settings): Promise<BlobStore> =>
        storage.type === 'local' ? new DiskBlobStore(storage.dir) : new (await import('./s3-blob-store')).S3BlobStore(storage),
    },
  ],
  exports: [FileAttachments, MultipartUploads],
})
export class FilesModule {}
