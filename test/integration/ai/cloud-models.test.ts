import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OFFLINE_EXTRACTIVE_MODEL } from '../../../layers/core/adapters/ai/extractive-answerer';
import { ModelUnavailableError } from '../../../layers/core/ports/answerer.port';
import { ModelRequestError } from '../../../layers/core/ports/model-request-error';
import { cloudModels } from '../../../layers/core/wiring/cloud/cloud-models';
import {
  type FakeOpenAi,
  jsonFixture,
  type RecordedRequest,
  sendJson,
  startFakeOpenAi,
} from './fake-openai-server';

interface SecretsRequest {
  readonly target: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly body: { SecretId?: string };
}

/**
 * Secrets Manager on 127.0.0.1, reached by the SDK through
 * AWS_ENDPOINT_URL_SECRETS_MANAGER. It speaks the service's JSON protocol
 * (awsJson1_1, `X-Amz-Target: secretsmanager.GetSecretValue`), answering
 * with the response and error shapes of AWS's API reference
 * (GetSecretValue: `ARN`, `Name`, `SecretString`, `VersionId`,
 * `VersionStages`, `CreatedDate`; errors as `__type` and `message`).
 */
async function startFakeSecretsManager(secrets: Map<string, string>) {
  const requests: SecretsRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      const target = req.headers['x-amz-target'] as string | undefined;
      requests.push({ target, headers: req.headers, body });
      const name = String(body.SecretId ?? '');
      const value = secrets.get(name);
      res.setHeader('content-type', 'application/x-amz-json-1.1');
      const fail = (status: number, type: string, message: string) => {
        res.statusCode = status;
        res.end(JSON.stringify({ __type: type, message }));
      };
      if (value === SERVICE_FAILURE) {
        fail(500, 'InternalServiceError', 'An error occurred on the server side.');
        return;
      }
      if (target !== 'secretsmanager.GetSecretValue' || value === undefined) {
        fail(400, 'ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
        return;
      }
      res.end(
        JSON.stringify({
          ARN: `arn:aws:secretsmanager:eu-west-1:123456789012:secret:${name}-AbC123`,
          Name: name,
          SecretString: value,
          VersionId: 'EXAMPLE1-90ab-cdef-fedc-ba987SECRET1',
          VersionStages: ['AWSCURRENT'],
          CreatedDate: 1.523477145713e9,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const SECRET = 'agent-query-service/openai';
/** A stored value that makes the fake answer 500 InternalServiceError instead. */
const SERVICE_FAILURE = '<internal service error>';

/** One unit vector of text-embedding-3-small's 1536 dimensions per input. */
function embeddingsFor(request: RecordedRequest): Record<string, unknown> {
  const template = jsonFixture('embeddings-float.json');
  const inputs = [request.body.input].flat() as string[];
  return {
    ...template,
    data: inputs.map((_text, index) => ({
      object: 'embedding',
      index,
      embedding: Array.from({ length: 1536 }, (_value, i) => (i === index ? 1 : 0)),
    })),
  };
}

describe('Function: cloudModels (issue 8: the model key from Secrets Manager, P55)', () => {
  const secrets = new Map<string, string>();
  let secretsManager: Awaited<ReturnType<typeof startFakeSecretsManager>>;
  let openAi: FakeOpenAi;
  const saved = { ...process.env };

  beforeAll(async () => {
    secretsManager = await startFakeSecretsManager(secrets);
    openAi = await startFakeOpenAi((request, res) => sendJson(res, 200, embeddingsFor(request)));
  });

  beforeEach(() => {
    secrets.clear();
    secretsManager.requests.length = 0;
    openAi.requests.length = 0;
    process.env = {
      ...saved,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.endpoint,
      // One attempt: the failure tests need no SDK backoff.
      AWS_MAX_ATTEMPTS: '1',
      MODEL_API_KEY_SECRET: SECRET,
      OPENAI_BASE_URL: openAi.baseURL,
    };
  });

  afterAll(async () => {
    process.env = saved;
    await secretsManager.close();
    await openAi.close();
  });

  const bearerTokens = () => openAi.requests.map((request) => request.headers.authorization);

  it('runs the offline models without MODEL_API_KEY_SECRET, reading no secret', async () => {
    delete process.env.MODEL_API_KEY_SECRET;

    const models = cloudModels();

    expect(models.embedder.id).toBe('offline-hash-v1/384');
    expect(models.answererFor(OFFLINE_EXTRACTIVE_MODEL)).toBeDefined();
    expect(() => models.answererFor('gpt-4o-mini')).toThrow(/modelApiKeySecret/);
    await models.embedder.embed(['hello']);
    expect(secretsManager.requests).toEqual([]);
  });

  it('reads no secret at init, then calls the provider with the secret’s value, signed with SigV4', async () => {
    secrets.set(SECRET, 'sk-test-first\n');

    const models = cloudModels();
    expect(secretsManager.requests).toEqual([]);
    await models.embedder.embed(['What is the refund policy?']);

    expect(models.embedder.id).toBe('openai/text-embedding-3-small/1536');
    expect(bearerTokens()).toEqual(['Bearer sk-test-first']);
    expect(secretsManager.requests).toHaveLength(1);
    expect(secretsManager.requests[0]?.body.SecretId).toBe(SECRET);
    expect(secretsManager.requests[0]?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/eu-west-1\/secretsmanager\/aws4_request/,
    );
  });

  it('keeps the key for MODEL_API_KEY_MAX_AGE_SECONDS, so calls within it read the secret once', async () => {
    secrets.set(SECRET, 'sk-test-first');
    const models = cloudModels();

    await models.embedder.embed(['one']);
    secrets.set(SECRET, 'sk-test-rotated');
    await models.embedder.embed(['two']);

    expect(bearerTokens()).toEqual(['Bearer sk-test-first', 'Bearer sk-test-first']);
    expect(secretsManager.requests).toHaveLength(1);
  });

  it('uses a rotated key once the cached one is older than the maximum age, without a new deploy', async () => {
    process.env.MODEL_API_KEY_MAX_AGE_SECONDS = '0';
    secrets.set(SECRET, 'sk-test-first');
    const models = cloudModels();

    await models.embedder.embed(['one']);
    secrets.set(SECRET, 'sk-test-rotated');
    await models.embedder.embed(['two']);

    expect(bearerTokens()).toEqual(['Bearer sk-test-first', 'Bearer sk-test-rotated']);
  });

  it('fails the model call, naming the secret, when the secret is empty', async () => {
    secrets.set(SECRET, '  ');
    const models = cloudModels();

    const failure = models.embedder.embed(['hello']);

    await expect(failure).rejects.toThrow(ModelRequestError);
    await expect(models.embedder.embed(['hello'])).rejects.toThrow(
      `The model API key secret ${SECRET} is empty`,
    );
    expect(openAi.requests).toEqual([]);
  });

  it('fails like a wrong key when the secret does not exist or may not be read', async () => {
    const models = cloudModels();

    const failure = models.embedder.embed(['hello']);

    await expect(failure).rejects.toThrow(
      `The model API key secret ${SECRET} could not be read (ResourceNotFoundException)`,
    );
    await expect(models.embedder.embed(['hello'])).rejects.toMatchObject({
      failure: 'authentication',
    });
    expect(openAi.requests).toEqual([]);
  });

  it('asks to retry later when Secrets Manager itself fails (503, not 500)', async () => {
    secrets.set(SECRET, SERVICE_FAILURE);
    const models = cloudModels();

    const failure = models.embedder.embed(['hello']);

    await expect(failure).rejects.toThrow(ModelUnavailableError);
    await expect(models.embedder.embed(['hello'])).rejects.toThrow(/InternalServiceError/);
  });

  it('refuses a malformed setting at construction, naming it', () => {
    process.env.MODEL_API_KEY_MAX_AGE_SECONDS = 'soon';
    expect(() => cloudModels()).toThrow(/MODEL_API_KEY_MAX_AGE_SECONDS/);
  });
});
