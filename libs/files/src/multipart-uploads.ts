import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { FORM_PARAMETER_LIMIT, MULTIPART_FIELDS_BYTES, RequestBodies, ValidationFailedError } from '@app/common';
import { FileAttachments, type IncomingFile, UploadBatch } from './file-attachments.service';
import { readMultipartBody } from './multipart-body';

/** How a route takes the files of its multipart body. */
export interface MultipartUploadRules {
  /** The object the body's fields are named under (`push`, `request`, ...): files come as `<wrapper>[files][]` parts. */
  wrapper: string;
  /**
   * Checked at each file part before anything else about it (who may send files at all; a page's
   * CSRF token), given the fields that came before the part (a form's hidden fields come first).
   */
  admit?: (fieldsSoFar: () => Record<string, unknown>) => void | Promise<void>;
  /** Stores one file part into the batch, encrypted as it streams in, or refuses it. */
  receive(uploads: UploadBatch, part: IncomingFile): Promise<void>;
}

/**
 * The one reader of a multipart body that carries files (a push's create, a secret request's create
 * and its answer): admitted under the bodies' memory budget, its fields gathered as a form's, each
 * file stored as it arrives. Whatever fails leaves nothing: a failed read discards at once, and the
 * files no one took are discarded when the answer has gone (after a create that took them, none).
 */
@Injectable()
export class MultipartUploads {
  constructor(
    private readonly files: FileAttachments,
    private readonly bodies: RequestBodies,
  ) {}

  /** Reads the body into `request.body`; the batch of its files, which `<wrapper>.files` then says exist (`[]`: they are in the batch). */
  async read(request: Request, response: Response, rules: MultipartUploadRules): Promise<UploadBatch> {
    const fileField = `${rules.wrapper}[files][]`;
    this.bodies.admitMultipart(request, response);
    const uploads = this.files.uploads();
    let fieldsRead: (() => Record<string, unknown>) | undefined;
    try {
      request.body = await readMultipartBody(request, {
        maxFields: FORM_PARAMETER_LIMIT,
        maxFieldBytes: MULTIPART_FIELDS_BYTES,
        onFile: async (part, fieldsSoFar) => {
          fieldsRead = fieldsSoFar;
          // A form's file input left empty: browsers send a part without a file name or bytes. Nothing chosen, nothing stored.
          if (part.filename === '') return void part.stream.resume();
          await rules.admit?.(fieldsSoFar);
          if (part.field !== fileField) throw ValidationFailedError.of('files', `Files must be sent as ${fileField} parts.`);
          await rules.receive(uploads, part);
        },
      });
    } catch (error) {
      // The answer goes out now, while the rest of the body is read and dropped: closing the
      // connection instead could reset it before the client has read the answer.
      request.resume();
      await uploads.discard();
      // The fields that came before the files, so that a page's refusal can give the typed text back.
      request.body = fieldsRead && readable(fieldsRead);
      throw error;
    }
    if (uploads.count === 0) return uploads;
    request.body = withReceivedFiles(request.body as Record<string, unknown>, rules.wrapper);
    // Discarding takes only files nothing took: after a create, nothing. Should it fail, the rows
    // it leaves are abandoned uploads, which the sweep destroys.
    response.once('close', () => void uploads.discard().catch(() => undefined));
    return uploads;
  }
}

/**
 * The files of a multipart body are content, even when no other field came with them: its wrapper
 * object is then not missing. They are in the batch; `files` here only says that they exist.
 */
function withReceivedFiles(body: Record<string, unknown>, wrapper: string): Record<string, unknown> {
  const wrapped = body[wrapper];
  return {
    ...body,
    [wrapper]: { ...(typeof wrapped === 'object' && wrapped !== null && !Array.isArray(wrapped) ? wrapped : {}), files: [] },
  };
}

/** The fields read, unless they cannot be (nested too deeply): a refusal then gives nothing back. */
function readable(fields: () => Record<string, unknown>): Record<string, unknown> | undefined {
  try {
    return fields();
  } catch {
    return undefined;
  }
}
