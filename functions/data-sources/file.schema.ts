import * as z from 'zod/mini';
import { FILE_UPLOAD_LIMITS, UPLOADED_FILE_STATUSES } from '../../layers/core/domain/uploaded-file';

/** Control characters and path separators have no place in a file's name (it becomes its title). */
const UNSAFE_IN_FILENAME = /[\p{Cc}/\\]/u;

/** POST /api/v1/data-sources/:id/files (D25). */
export const createFileUploadBody = z.strictObject({
  filename: z.string().check(
    z.trim(),
    z.minLength(1, 'must not be empty'),
    z.maxLength(FILE_UPLOAD_LIMITS.filenameMax),
    z.refine(
      (name) => !UNSAFE_IN_FILENAME.test(name),
      'must be a file name without path separators or control characters',
    ),
  ),
  content_type: z.optional(
    z
      .string()
      .check(
        z.trim(),
        z.minLength(1),
        z.maxLength(FILE_UPLOAD_LIMITS.contentTypeMax),
        z.regex(/^[\x21-\x7e][\x20-\x7e]*$/, 'must be a media type such as application/pdf'),
      ),
  ),
  size_bytes: z.optional(
    z
      .int()
      .check(
        z.minimum(1),
        z.maximum(FILE_UPLOAD_LIMITS.maxBytes, 'files are at most 50 MiB (D17)'),
      ),
  ),
});

export const uploadedFileResource = z.object({
  id: z.string(),
  data_source_id: z.string(),
  filename: z.string(),
  content_type: z.nullable(z.string()),
  status: z.enum(UPLOADED_FILE_STATUSES),
  size_bytes: z.nullable(z.int()),
  sha256: z.nullable(z.string()),
  chunks_indexed: z.int(),
  error: z.nullable(z.string()),
  upload_expires_at: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  indexed_at: z.nullable(z.string()),
});

export const fileUploadTicket = z.object({
  document_id: z.string(),
  upload_url: z.string(),
  upload_method: z.literal('POST'),
  upload_fields: z.record(z.string(), z.string()),
  expires_at: z.string(),
  max_bytes: z.int(),
  file: uploadedFileResource,
});

export const uploadedFileList = z.object({ files: z.array(uploadedFileResource) });
