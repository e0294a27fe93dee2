import * as z from 'zod/mini';
import { FILE_UPLOAD_LIMITS, UPLOADED_FILE_STATUSES } from '../../layers/core/domain/uploaded-file';

/** Control characters and path separators have no place in a file's name (it becomes its title). */
const UNSAFE_IN_FILENAME = /[\p{Cc}/\\]/u;

const filename = z.string().check(
  z.trim(),
  z.minLength(1, 'must not be empty'),
  z.maxLength(FILE_UPLOAD_LIMITS.filenameMax),
  z.refine(
    (name) => !UNSAFE_IN_FILENAME.test(name),
    'must be a file name without path separators or control characters',
  ),
);

const contentType = z
  .string()
  .check(
    z.trim(),
    z.minLength(1),
    z.maxLength(FILE_UPLOAD_LIMITS.contentTypeMax),
    z.regex(/^[\x21-\x7e][\x20-\x7e]*$/, 'must be a media type such as application/pdf'),
  );

const sizeBytes = z
  .int()
  .check(z.minimum(1), z.maximum(FILE_UPLOAD_LIMITS.maxBytes, 'files are at most 50 MiB'));

/** One file to come: the body of a single upload, and each entry of a batch. */
export const fileToUpload = z.strictObject({
  filename,
  content_type: z.optional(contentType),
  size_bytes: z.optional(sizeBytes),
});

/**
 * POST /api/v1/data-sources/:id/files: one file's fields, or `files`,
 * 1 to 100 of them, for a ticket each from one Write request. One
 * object with every field optional rather than a union, so a bad body still
 * names its field (`filename`, `files.3.filename`) instead of "matches
 * neither"; the check below requires exactly one of the two forms.
 */
export const createFileUploadBody = z.pipe(
  z
    .strictObject({
      filename: z.optional(filename),
      content_type: z.optional(contentType),
      size_bytes: z.optional(sizeBytes),
      files: z.optional(
        z
          .array(fileToUpload)
          .check(
            z.minLength(1, 'must list at least one file'),
            z.maxLength(
              FILE_UPLOAD_LIMITS.batchMax,
              `at most ${FILE_UPLOAD_LIMITS.batchMax} files per request`,
            ),
          ),
      ),
    })
    .check(
      z.superRefine((body, context) => {
        if (body.files === undefined && body.filename === undefined) {
          // As the single-file body always answered a missing name.
          context.issues.push({
            code: 'invalid_type',
            expected: 'string',
            path: ['filename'],
            input: undefined,
          });
        }
        if (body.files !== undefined) {
          for (const field of ['filename', 'content_type', 'size_bytes'] as const) {
            if (body[field] === undefined) continue;
            context.issues.push({
              code: 'custom',
              path: [field],
              message: 'send one file (filename, content_type, size_bytes) or files, not both',
              input: body[field],
            });
          }
        }
      }),
    ),
  z.transform(({ files, filename: name = '', content_type, size_bytes }) =>
    files === undefined
      ? { batch: false as const, file: { filename: name, content_type, size_bytes } }
      : { batch: true as const, files },
  ),
);

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
  /**
   * The source already had a file of this name: this is its document, whose
   * content and chunks the upload replaces when it arrives (the same bytes
   * again change nothing).
   */
  replaces_existing: z.boolean(),
});

export const uploadedFileList = z.object({ files: z.array(uploadedFileResource) });

/** The answer to a batch: one ticket per file, in the order they were listed. */
export const fileUploadBatch = z.object({ tickets: z.array(fileUploadTicket) });
