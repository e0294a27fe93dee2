import type { MiddyfiedHandler } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Operation } from '../layers/core/http/operation';
import type { HttpContext } from '../layers/core/http/request-state';
import type { Route } from '../layers/core/http/route';
import type { StreamableHandlerExport } from '../layers/core/http/streaming';

/**
 * What an endpoint family's `handler.ts` exports: the Lambda handler and the
 * operations its routes name. The CDK stack never loads it (it bundles the
 * file by path); the one-machine gateway calls `handler`, the OpenAPI
 * generator reads `operations`.
 */
export interface FamilyEntry {
  /** A middy chain, or for a family whose routes stream, the streamable export. */
  readonly handler:
    | MiddyfiedHandler<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>
    | StreamableHandlerExport;
  readonly operations: Readonly<Record<string, Operation>>;
}

/** The work queues a family's function may send to (the stack's queues by name). */
export type SendableQueue = 'syncJobs' | 'evaluations' | 'webhookDeliveries';

/** How a family uses the secrets key for one purpose of its encryption context. */
export interface SecretsKeyUse {
  /** The encryption context's `purpose`, from the code that seals them. */
  readonly purpose: string;
  /** Seal new secrets and open them, or only open secrets sealed elsewhere. */
  readonly use: 'seal-and-open' | 'open';
}

/**
 * Values of the deployment a family's function is given as environment
 * variables, beyond the configuration every function gets:
 * - `publicUrl`: the console's origin as `SVC_PUBLIC_URL`, where browsers
 *   reach the service, so callbacks from outside (SSO, connector sign-in)
 *   land there and set the console's cookie;
 * - `webhookSourceAddresses`: the addresses deliveries leave from
 *   (`SVC_WEBHOOK_SOURCE_IPS` and when they last changed), with the VPC only;
 * - `deploymentModels`: which provider the deployment answers with, and
 *   Bedrock's answer model (`SVC_DEPLOYMENT_*`), for a family that checks
 *   agents' models without calling any (no secret, no model access).
 */
export type FamilyVariable = 'publicUrl' | 'webhookSourceAddresses' | 'deploymentModels';

/**
 * The infrastructure a family's function needs besides what every HTTP
 * family gets (table items, the session secret, the origin-verify secret and
 * the console's origin). Each field is granted to this family's role alone.
 */
export interface FamilyNeeds {
  /**
   * Seconds the function may run: at most 29 (API Gateway waits no longer
   * for a buffered response), or 900 for a family whose routes stream.
   * @default 10
   */
  readonly timeoutSeconds?: number;
  /**
   * Memory in MB; CPU scales with it.
   * @default 1024
   */
  readonly memoryMb?: number;
  /**
   * Where the function runs:
   * - `search-domain`: beside the search domain, in its VPC when it has one
   *   (a live deployment keeps the domain off the internet); a family that
   *   reads the index needs it;
   * - `published-addresses`: out through the NAT gateways' Elastic IPs that
   *   receivers allowlist, for a family that connects to them.
   * @default - outside any VPC
   */
  readonly network?: 'search-domain' | 'published-addresses';
  /** Reads and writes the OpenSearch chunk index (needs `network: 'search-domain'`). */
  readonly search?: true;
  /**
   * Calls the model provider (with the deployment's key, or Amazon Bedrock with its role):
   * `answers` writes answers and embeds, `embeddings` only embeds.
   */
  readonly models?: 'answers' | 'embeddings';
  /** The queues it sends messages to. */
  readonly sendsTo?: readonly SendableQueue[];
  /**
   * Uploaded files: presigns uploads and downloads and deletes files,
   * under the bucket's `files/` prefix only.
   */
  readonly files?: true;
  /** Sealing or opening stored secrets with the secrets key, by purpose. */
  readonly secretsKey?: readonly SecretsKeyUse[];
  /** Reads the connector providers' apps secret, when the deployment has one. */
  readonly connectorApps?: true;
  /** Sends mail through the deployment's SES identity, when it has one. */
  readonly mail?: true;
  /** Deployment values it is given as environment variables. */
  readonly environment?: readonly FamilyVariable[];
}

/**
 * One endpoint family, declared once in its own folder
 * (`functions/<name>/family.ts`) and listed in functions/families.ts: the CDK
 * stack, the HTTP API construct, the OpenAPI generator and the one-machine
 * gateway all read it from that list.
 *
 * @example
 * export const family: EndpointFamily = {
 *   name: 'agents',
 *   routes: AGENTS_ROUTES,
 *   needs: {},
 *   entry: () => require('./handler') as typeof import('./handler'),
 * };
 */
export interface EndpointFamily {
  /** The folder under functions/, and the `family` every one of its routes names. */
  readonly name: string;
  /** Its rows of the route table (layers/core/http/routes/<name>.ts). */
  readonly routes: readonly Route[];
  readonly needs: FamilyNeeds;
  /**
   * Loads `handler.ts` when first called. A `require` rather than an import,
   * so that reading the declarations (the CDK app, every synth) loads no
   * handler code; only the one-machine runtime and the OpenAPI generator
   * call it. Nothing that Lambda runs may import a family.ts: esbuild would
   * bundle the handler it names.
   */
  readonly entry: () => FamilyEntry;
}
