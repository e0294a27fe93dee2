import { createHash } from 'node:crypto';
import { Document as DocxDocument, HeadingLevel, Packer, Paragraph } from 'docx';
import { fileObjectKey } from '../../layers/core/domain/uploaded-file';
import { createDataSource } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { createTenant, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export const REFUNDS_MD = Buffer.from(
  '# Refunds\n\nCustomers may ask for a refund within thirty days of purchase.\n\n' +
    '## Exceptions\n\nGift cards are never refunded, not even for a wombat.\n',
);

export async function docxOf(heading: string, text: string): Promise<Buffer> {
  const document = new DocxDocument({
    sections: [
      {
        children: [
          new Paragraph({ text: heading, heading: HeadingLevel.HEADING_1 }),
          new Paragraph({ text }),
        ],
      },
    ],
  });
  return Packer.toBuffer(document);
}

/**
 * The service and helpers the file-upload suites share: one service on a
 * controllable clock with a file data source and a second organization,
 * the ingestion worker stepped by hand, search and stored-object reads.
 */
export function fileUploadsSuite() {
  const clock = new TestClock();
  let service: TestService;
  let key: string;
  let sourceId: string;
  let other: TestKey;

  beforeAll(async () => {
    service = await startTestService({ clock });
    key = service.adminKey;
    other = await createTenant(service, { name: 'Other org' });
    sourceId = (
      await createDataSource(service, key, {
        type: 'file',
        name: 'Handbook',
        sync_frequency: 'manual',
      })
    ).id;
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const filesPath = (source = sourceId) => `/api/v1/data-sources/${source}/files`;
  const ingest = () => service.runtime.workers.stepIngestion();
  const search = async (query: string, source = sourceId) => {
    const response = await api(service.url, '/api/v1/semantic-search', {
      method: 'POST',
      key,
      body: { query, org_id: service.orgId, data_source_ids: [source], top_k: 50 },
    });
    expect(response.status).toBe(200);
    return json(response).chunks as Array<Record<string, any>>;
  };
  const stored = (documentId: string, source = sourceId) =>
    service.runtime.dependencies.fileStorage.read(fileObjectKey(service.orgId, source, documentId));
  const newFileSource = async (name: string) =>
    (await createDataSource(service, key, { type: 'file', name, sync_frequency: 'manual' })).id;

  return {
    clock,
    filesPath,
    ingest,
    search,
    stored,
    newFileSource,
    service: () => service,
    key: () => key,
    sourceId: () => sourceId,
    other: () => other,
  };
}
