/**
 * Files: attachments encrypted while they stream in (chunked AES-256-GCM, see @app/crypto), kept
 * on local disk or in S3-compatible storage under random keys, listed with signed short-lived
 * links, streamed back decrypted (with byte ranges), and destroyed with their push. Also the
 * HTTP side of it: reading multipart bodies as they stream, and answering a download.
 */
export * from './files.module';
export { FileAttachments, UploadBatch, type AttachedFile, type IncomingFile, type StoredFile } from './file-attachments.service';
export { FileAttachmentEntity } from './file-attachment.entity';
export * from './multipart-body';
export { MultipartUploads, type MultipartUploadRules } from './multipart-uploads';
export * from './send-file';
