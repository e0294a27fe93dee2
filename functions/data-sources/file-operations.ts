import * as z from 'zod/mini';
import { operationsWith } from '../../layers/core/http/operation';
import { emptyResponse, jsonResponse } from '../../layers/core/http/responses';
import {
  createFileUpload,
  createFileUploads,
  deleteFile,
  fileDownloadUrl,
  getFile,
  listFiles,
} from '../../layers/core/use-cases/files/file-uploads';
import {
  createFileUploadBody,
  fileUploadBatch,
  fileUploadTicket,
  uploadedFileList,
  uploadedFileResource,
} from './file.schema';
import type { DataSourcesDependencies } from './wiring';

const operation = operationsWith<DataSourcesDependencies>();

/** A file data source's uploads: `/api/v1/data-sources/:id/files`. */
export const fileOperations = {
  createFileUpload: operation({
    summary:
      'Presign file uploads: POST `upload_fields` then the file as `file`, multipart/form-data, to `upload_url`. Send one file (`filename`, …) for one ticket, or `files` (1 to 100) for a ticket each in one request',
    pathIds: { id: 'dataSource' },
    body: createFileUploadBody,
    responses: {
      201: {
        description:
          'Where and how to upload, and the file record; for `files`, `tickets` in the order listed',
        schema: z.union([fileUploadTicket, fileUploadBatch]),
      },
    },
    async handle({ params, body, principal, deps }) {
      const dataSourceId = params.id ?? '';
      if (!body.batch) {
        return jsonResponse(
          201,
          await createFileUpload(deps, principal.orgId, dataSourceId, body.file),
        );
      }
      return jsonResponse(201, {
        tickets: await createFileUploads(deps, principal.orgId, dataSourceId, body.files),
      });
    },
  }),
  listFiles: operation({
    summary: "List a data source's uploaded files, newest first",
    pathIds: { id: 'dataSource' },
    responses: { 200: { description: 'The files', schema: uploadedFileList } },
    async handle({ params, principal, deps }) {
      return jsonResponse(200, { files: await listFiles(deps, principal.orgId, params.id ?? '') });
    },
  }),
  getFile: operation({
    summary: 'Get an uploaded file and its ingestion status',
    pathIds: { id: 'dataSource', document_id: 'document' },
    responses: { 200: { description: 'The file', schema: uploadedFileResource } },
    async handle({ params, principal, deps }) {
      return jsonResponse(
        200,
        await getFile(deps, principal.orgId, params.id ?? '', params.document_id ?? ''),
      );
    },
  }),
  getFileContent: operation({
    summary:
      "Open an uploaded file: a redirect to a download of its bytes, shown in place under its name (what a cited file's document_url points at)",
    pathIds: { id: 'dataSource', document_id: 'document' },
    responses: {
      302: {
        description:
          'Location is a download of the file good for 5 minutes (Content-Disposition: inline, with the file name); follow it without credentials',
      },
      404: {
        description: 'No such file in this organization, or its upload never arrived',
      },
    },
    async handle({ params, principal, deps }) {
      const location = await fileDownloadUrl(
        deps,
        principal.orgId,
        params.id ?? '',
        params.document_id ?? '',
      );
      // The address expires within minutes: never cached, and never sent on as a referrer.
      return {
        statusCode: 302,
        headers: { Location: location, 'Cache-Control': 'no-store' },
        body: '',
      };
    },
  }),
  deleteFile: operation({
    summary: 'Delete an uploaded file: its chunks, its bytes and its record',
    pathIds: { id: 'dataSource', document_id: 'document' },
    responses: { 204: { description: 'Deleted' } },
    async handle({ params, principal, deps }) {
      await deleteFile(deps, principal.orgId, params.id ?? '', params.document_id ?? '');
      return emptyResponse(204);
    },
  }),
};
