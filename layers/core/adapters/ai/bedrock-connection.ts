import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import {
  BedrockRuntimeClient,
  type ContentBlock,
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseResponse,
  ConverseStreamCommand,
  type ConverseStreamOutput,
  InvokeModelCommand,
} from '@aws-sdk/client-bedrock-runtime';

/**
 * The Bedrock Runtime client and the three calls the service makes. This
 * module is only ever loaded with `import()` (bedrock-runtime.ts), at the
 * first call: a deployment on another provider, and every cold start, never
 * reads the SDK.
 */

export interface BedrockConnectionOptions {
  readonly region?: string | undefined;
  readonly endpoint?: string | undefined;
  /** Attempts the SDK makes on its own: 1 inside a request, more in the workers. */
  readonly maxAttempts: number;
  /** The socket's own idle limit, a second guard behind the callers' silence watchdog. */
  readonly idleTimeoutMs: number;
}

export type ConverseInput = Pick<
  ConverseCommandInput,
  'modelId' | 'system' | 'messages' | 'inferenceConfig'
>;
export type { ContentBlock, ConverseResponse, ConverseStreamOutput };

export interface BedrockConnection {
  /** The region requests go to, for messages that name where to fix something. */
  region(): Promise<string>;
  converse(input: ConverseInput, signal: AbortSignal): Promise<ConverseResponse>;
  converseStream(
    input: ConverseInput,
    signal: AbortSignal,
  ): Promise<AsyncIterable<ConverseStreamOutput>>;
  /** `InvokeModel` with a JSON body; the model's JSON answer. */
  invokeModel(modelId: string, body: unknown, signal?: AbortSignal): Promise<unknown>;
}

/**
 * One client over HTTP/1.1. The SDK's Bedrock Runtime client defaults to
 * its HTTP/2 handler, which opens cleartext HTTP/2 (h2c) to an `http://`
 * endpoint: a stand-in or proxy that speaks HTTP/1.1, as most do, then
 * never answers. Converse, ConverseStream and InvokeModel need nothing of
 * HTTP/2 (only the bidirectional streaming API does, which the service does
 * not use), so the handler is chosen here: the same transport to AWS and
 * to any stand-in, kept-alive connections, and the socket idle limit above.
 */
export async function connectBedrock(
  options: BedrockConnectionOptions,
): Promise<BedrockConnection> {
  // Loaded on first use like the SDK: with the Smithy protocol code it
  // pulls in, about 140 KB the query function's init would otherwise parse.
  const { NodeHttpHandler } = await import('@smithy/node-http-handler');
  const agentOptions = { keepAlive: true, maxSockets: 50 };
  const client = new BedrockRuntimeClient({
    ...(options.region ? { region: options.region } : {}),
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    maxAttempts: options.maxAttempts,
    requestHandler: new NodeHttpHandler({
      connectionTimeout: 5_000,
      requestTimeout: options.idleTimeoutMs,
      httpAgent: new HttpAgent(agentOptions),
      httpsAgent: new HttpsAgent(agentOptions),
    }),
  });
  return {
    region: () => client.config.region(),
    converse: (input, signal) => client.send(new ConverseCommand(input), { abortSignal: signal }),
    async converseStream(input, signal) {
      const response = await client.send(new ConverseStreamCommand(input), {
        abortSignal: signal,
      });
      if (!response.stream) throw new Error('ConverseStream answered without a stream');
      return response.stream;
    },
    async invokeModel(modelId, body, signal) {
      const response = await client.send(
        new InvokeModelCommand({
          modelId,
          contentType: 'application/json',
          accept: 'application/json',
          body: new TextEncoder().encode(JSON.stringify(body)),
        }),
        signal ? { abortSignal: signal } : {},
      );
      const answer: unknown = JSON.parse(new TextDecoder().decode(response.body));
      return answer;
    },
  };
}
