import { toSqsEvent } from '../../lib/local/background-workers';
import { INGESTION_WORKER, SYNC_WORKER } from '../../lib/local/functions';
import { createDataSource, websiteSource } from '../support/fixtures';
import { api } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { requestSync, syncStatus } from '../support/sync';
import { fileRecord, uploadFile } from '../support/uploads';

/**
 * Poison inputs (issue 14): on one machine a file that takes too long or too
 * much memory to read is refused with the reason in the parsing process
 * (P69) while the API keeps answering, and work whose message keeps coming
 * back (the worker died on it every time) ends `failed` with its event
 * instead of staying `processing` forever.
 */
describe('Poison inputs (issue 14)', () => {
  let service: TestService;
  let key: string;
  const events = async (type: string) =>
    (await service.runtime.dependencies.outbox.pending(500))
      .flatMap((batch) => batch.events)
      .filter((event) => event.type === type);
  const deliverWithReceiveCount = (
    handler: typeof INGESTION_WORKER | typeof SYNC_WORKER,
    body: unknown,
    receiveCount: number,
  ) =>
    handler(
      toSqsEvent(
        [{ messageId: 'm1', receiptHandle: 'r1', body, receiveCount, sentAt: Date.now() }],
        'poison',
      ),
    );

  beforeAll(async () => {
    service = await startTestService({ env: { SVC_PARSE_TIMEOUT_SECONDS: '1' } });
    key = service.adminKey;
  });
  afterAll(() => service.end());

  const newFileSource = async (name: string) =>
    (await createDataSource(service, key, { type: 'file', name, sync_frequency: 'manual' }))
      .id as string;

  it('refuses a file that takes longer than the parsing limit, and the API answers meanwhile', async () => {
    // Prepare: 20 MB without a space takes seconds to chunk, over the 1 s limit
    const source = await newFileSource('Runaway');
    const ticket = await uploadFile(service, key, source, 'run.txt', Buffer.alloc(20e6, 'x'));

    // Act
    let ingested = false;
    const ingestion = service.runtime.workers.stepIngestion().then(() => {
      ingested = true;
    });
    const listed = await api(service.url, '/api/v1/agents', { key });
    const answeredDuringIngestion = !ingested;
    await ingestion;

    // Assess
    expect(listed.status).toBe(200);
    expect(answeredDuringIngestion).toBe(true);
    expect(await fileRecord(service, key, source, ticket.document_id)).toMatchObject({
      status: 'failed',
      chunks_indexed: 0,
      error: expect.stringMatching(/took longer than 1 s/),
    });
  });

  it('ends a file whose message came back on its last delivery, with its failure event', async () => {
    // Prepare: the upload's message was received four times by workers that never finished
    const source = await newFileSource('Crash loop');
    const ticket = await uploadFile(
      service,
      key,
      source,
      'loop.md',
      Buffer.from('# Loop\n\nText.'),
    );
    const objectKey = ticket.upload_fields.key ?? '';
    const notification = {
      Records: [{ eventName: 'ObjectCreated:Post', s3: { object: { key: objectKey } } }],
    };

    // Act
    const result = await deliverWithReceiveCount(INGESTION_WORKER, notification, 5);

    // Assess
    expect(result).toEqual({ batchItemFailures: [] });
    expect(await fileRecord(service, key, source, ticket.document_id)).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/did not finish in 4 attempts/),
    });
    const failures = await events('datasource.failed');
    expect(failures.map((event) => event.data)).toContainEqual(
      expect.objectContaining({ dataSource: expect.objectContaining({ id: source }) }),
    );
  });

  it('leaves a file that was indexed before the worker died as it is', async () => {
    const source = await newFileSource('Done before the crash');
    const ticket = await uploadFile(service, key, source, 'done.md', Buffer.from('# Done\n\nOk.'));
    await service.runtime.workers.stepIngestion();
    const objectKey = ticket.upload_fields.key ?? '';

    await deliverWithReceiveCount(
      INGESTION_WORKER,
      { Records: [{ eventName: 'ObjectCreated:Post', s3: { object: { key: objectKey } } }] },
      5,
    );

    expect(await fileRecord(service, key, source, ticket.document_id)).toMatchObject({
      status: 'indexed',
    });
  });

  it('ends a sync job whose message came back on its last delivery, with its failure event', async () => {
    // Prepare
    const source = (await createDataSource(service, key, websiteSource())).id as string;
    const { job } = await requestSync(service, key, source);

    // Act
    const result = await deliverWithReceiveCount(
      SYNC_WORKER,
      { org_id: service.orgId, data_source_id: source, job_id: job.id },
      5,
    );

    // Assess
    expect(result).toEqual({ batchItemFailures: [] });
    const status = await syncStatus(service, key, source);
    expect(status).toMatchObject({ status: 'failed' });
    expect(JSON.stringify(status)).toMatch(/did not finish in 4 attempts/);
    const failures = await events('datasource.failed');
    expect(failures.map((event) => event.data)).toContainEqual(
      expect.objectContaining({ dataSource: expect.objectContaining({ id: source }) }),
    );
  });
});
