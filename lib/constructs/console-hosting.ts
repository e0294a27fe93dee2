import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type CfnElement, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_HEADER } from '../../layers/core/http/client-address';
import { SECURITY_HEADERS } from '../../layers/core/http/middlewares/response-headers';
import { responseHeadersOf } from '../console/cloudfront-headers';
import { CONSOLE_SECURITY_HEADERS } from '../console/security-headers';

/** Where the API answers, as the distribution's `/api/*` origin sees it. */
export interface ConsoleApiOrigin {
  /** The execute-api host (`<id>.execute-api.<region>.amazonaws.com`) or the API's custom domain. */
  readonly domainName: string;
  /**
   * Prepended to every forwarded path: `/<stage>` on the execute-api host;
   * none on a custom domain, whose mapping names the stage.
   */
  readonly originPath?: string;
}

/** The console's own DNS name, with its certificate. */
export interface ConsoleDomain {
  /** Lower-case DNS name, e.g. `console.example.com`. */
  readonly domainName: string;
  /** An ACM certificate in us-east-1 (CloudFront's region) covering `domainName`. */
  readonly certificate: acm.ICertificate;
}

export interface ConsoleHostingProps {
  /**
   * The built console (`node web/build.mjs` → web/dist): `index.html` at the
   * top and content-hashed files under `assets/`.
   */
  readonly assetsDirectory: string;
  /** The API, reached on `/api/*` of the console's origin. */
  readonly api: ConsoleApiOrigin;
  /**
   * Serve the console on this name, with TLS 1.2 at least.
   * @default - the distribution's own `*.cloudfront.net` name
   */
  readonly domain?: ConsoleDomain;
  /**
   * ARN of a CloudFront-scope (global) AWS WAF web ACL, made in us-east-1.
   * @default - none; `/api/*` still passes the API stage's regional web ACL
   */
  readonly webAclArn?: string;
  /**
   * The origin secret (a `{{resolve:secretsmanager:…}}` reference, never
   * a literal) sent to API Gateway as `X-Svc-Origin-Verify` on every `/api/*`
   * request, beside the viewer's address in `X-Svc-Viewer-Address`, so the
   * functions judge console traffic by the browser's address.
   * @default - neither header: the functions see CloudFront's addresses
   */
  readonly originVerifyHeaderValue?: string;
  /** Receives the console bucket's S3 server access logs (granted by bucket policy). */
  readonly serverAccessLogsBucket: s3.IBucket;
  /**
   * Days the distribution's access logs are kept.
   * @default 90
   */
  readonly logRetentionDays?: number;
  /**
   * What happens to both buckets (the console's, the distribution's logs)
   * when they leave the stack; with `RemovalPolicy.DESTROY` they are emptied
   * first, as the file store's are.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/** Hashed files never change under their name: cached for a year by browsers and CloudFront. */
export const HASHED_ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** index.html (and anything else at the top) names the current hashes: revalidated on every load. */
export const ENTRY_CACHE_CONTROL = 'no-cache';

/**
 * The console's deep links (`/agents/agt_…`) are its own routes, so
 * any path whose last segment has no dot answers index.html; a file path
 * (`/assets/index-3f2a.js`) is looked up as it is, and a missing one stays
 * an error rather than a page. Only the console's behavior runs this:
 * `/api/*` answers, errors included, pass unchanged.
 */
export const DEEP_LINK_FUNCTION = `function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri.lastIndexOf('.') <= uri.lastIndexOf('/')) request.uri = '/index.html';
  return request;
}`;

/**
 * On `/api/*`, the viewer's address as CloudFront saw the connection
 * (`event.viewer.ip`) in X-Svc-Viewer-Address, replacing whatever a viewer
 * sent under that name; the managed AllViewerExceptHostHeader policy passes
 * it on with the viewer's own headers (a header a viewer-request function
 * adds is a viewer header to it). A viewer's own X-Svc-Origin-Verify is
 * dropped too (the origin custom header would replace it anyway).
 */
export const VIEWER_ADDRESS_FUNCTION = `function handler(event) {
  var request = event.request;
  request.headers['${VIEWER_ADDRESS_HEADER.toLowerCase()}'] = { value: event.viewer.ip };
  delete request.headers['${ORIGIN_VERIFY_HEADER.toLowerCase()}'];
  return request;
}`;

/**
 * CloudFront's origin response timeout, at its most without a quota
 * increase: buffered API answers end within API Gateway's 29 s, and a
 * streamed query answer sends a keep-alive every 15 s.
 */
export const API_ORIGIN_READ_TIMEOUT = Duration.seconds(60);

/**
 * Issue 21: the web console in the cloud, on one HTTPS origin.
 * CloudFront serves the built console from a private bucket (origin access
 * control, no public access, TLS only) and sends `/api/*` to API Gateway,
 * uncached, with every header but `Host` (API Gateway needs its own),
 * every cookie and query string. Plain HTTP is redirected to HTTPS on both.
 * The console's responses carry CONSOLE_SECURITY_HEADERS from a response
 * headers policy; the API's carry its own (SECURITY_HEADERS), which the
 * policy only fills in where CloudFront itself answers (an origin error).
 */
export class ConsoleHosting extends Construct {
  readonly bucket: s3.Bucket;
  readonly logBucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  readonly consoleHeaders: cloudfront.ResponseHeadersPolicy;
  readonly apiHeaders: cloudfront.ResponseHeadersPolicy;
  /** `https://<host>`, without a trailing slash: what browsers send as `Origin`. */
  readonly origin: string;
  /** `https://<host>/`: where people sign in. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ConsoleHostingProps) {
    super(scope, id);
    assertBuiltConsole(props.assetsDirectory);
    const logRetentionDays = props.logRetentionDays ?? 90;
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const autoDeleteObjects = removalPolicy === RemovalPolicy.DESTROY;
    this.node.addValidation({
      validate: () =>
        Number.isInteger(logRetentionDays) && logRetentionDays >= 1
          ? []
          : [
              `logRetentionDays must be a whole number of days, at least 1, got ${logRetentionDays}`,
            ],
    });
    // As in FileStore: server access logs are delivered by bucket policy (ACLs are disabled there).
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);

    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      serverAccessLogsBucket: props.serverAccessLogsBucket,
      serverAccessLogsPrefix: 'console/',
      removalPolicy,
      autoDeleteObjects,
    });

    // CloudFront's standard logs are written with the log-delivery account's
    // object ACL, so this bucket keeps ACLs (objects stay the bucket owner's).
    this.logBucket = new s3.Bucket(this, 'AccessLogBucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(logRetentionDays) }],
      removalPolicy,
      autoDeleteObjects,
    });
    Validations.of(this.logBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        "This bucket is the destination of the console distribution's access logs; logging it as well would need yet another bucket, or log into itself in a loop.",
    });

    this.consoleHeaders = new cloudfront.ResponseHeadersPolicy(this, 'ConsoleHeaders', {
      comment: 'Agent Query Service console: CSP, HSTS and the other security headers',
      ...responseHeadersOf(CONSOLE_SECURITY_HEADERS, true),
    });
    // The functions send these themselves; the policy fills them in on
    // answers CloudFront makes (an unreachable origin), never replacing theirs.
    this.apiHeaders = new cloudfront.ResponseHeadersPolicy(this, 'ApiHeaders', {
      comment: "Agent Query Service API through the console's origin: the API's security headers",
      ...responseHeadersOf(SECURITY_HEADERS, false),
    });

    const deepLinks = new cloudfront.Function(this, 'DeepLinks', {
      comment: 'Agent Query Service console: paths without a file extension answer index.html',
      code: cloudfront.FunctionCode.fromInline(DEEP_LINK_FUNCTION),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
    });

    const apiOrigin = new origins.HttpOrigin(props.api.domainName, {
      ...(props.api.originPath ? { originPath: props.api.originPath } : {}),
      protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
      readTimeout: API_ORIGIN_READ_TIMEOUT,
      // Proof that a request came through this distribution; replaces a viewer's header of that name.
      ...(props.originVerifyHeaderValue
        ? { customHeaders: { [ORIGIN_VERIFY_HEADER]: props.originVerifyHeaderValue } }
        : {}),
    });
    const viewerAddress = props.originVerifyHeaderValue
      ? new cloudfront.Function(this, 'ViewerAddress', {
          comment: "Agent Query Service API: the viewer's address for the functions",
          code: cloudfront.FunctionCode.fromInline(VIEWER_ADDRESS_FUNCTION),
          runtime: cloudfront.FunctionRuntime.JS_2_0,
        })
      : undefined;

    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'Agent Query Service: the web console, and the API on /api/*',
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: this.consoleHeaders,
        compress: true,
        functionAssociations: [
          { function: deepLinks, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST },
        ],
      },
      additionalBehaviors: {
        '/api/*': {
          origin: apiOrigin,
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
          allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
          cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
          originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: this.apiHeaders,
          // Streamed answers are passed on as they come.
          compress: false,
          ...(viewerAddress
            ? {
                functionAssociations: [
                  {
                    function: viewerAddress,
                    eventType: cloudfront.FunctionEventType.VIEWER_REQUEST,
                  },
                ],
              }
            : {}),
        },
      },
      // A security policy is only ours to choose with a certificate of our own; with
      // the default *.cloudfront.net certificate CloudFront fixes it at TLSv1. TLS 1.3 is
      // negotiated under TLSv1.2_2021 wherever the browser has it.
      ...(props.domain
        ? {
            domainNames: [props.domain.domainName],
            certificate: props.domain.certificate,
            sslSupportMethod: cloudfront.SSLMethod.SNI,
            minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {}),
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      priceClass: cloudfront.PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: this.logBucket,
      logFilePrefix: 'cloudfront/',
      ...(props.webAclArn ? { webAclId: props.webAclArn } : {}),
    });

    const host = props.domain?.domainName ?? this.distribution.distributionDomainName;
    this.origin = `https://${host}`;
    this.url = `${this.origin}/`;

    // Hashed files first, then the index that names them, so a page loaded
    // mid-deployment never asks for a file that is not there yet. Neither
    // prunes: a page still open keeps finding the files it was built with.
    const hashedAssets = new s3deploy.BucketDeployment(this, 'HashedAssets', {
      sources: [s3deploy.Source.asset(join(props.assetsDirectory, 'assets'))],
      destinationBucket: this.bucket,
      destinationKeyPrefix: 'assets/',
      cacheControl: [s3deploy.CacheControl.fromString(HASHED_ASSET_CACHE_CONTROL)],
      prune: false,
      memoryLimit: 512,
    });
    const entry = new s3deploy.BucketDeployment(this, 'Entry', {
      sources: [s3deploy.Source.asset(props.assetsDirectory, { exclude: ['assets', 'assets/**'] })],
      destinationBucket: this.bucket,
      cacheControl: [s3deploy.CacheControl.fromString(ENTRY_CACHE_CONTROL)],
      prune: false,
      memoryLimit: 512,
    });
    entry.node.addDependency(hashedAssets);

    this.acknowledgeDesignFindings(props);
  }

  private acknowledgeDesignFindings(props: ConsoleHostingProps): void {
    const distribution = this.distribution;
    Validations.of(distribution).acknowledge({
      id: 'AwsSolutions-CFR1',
      reason:
        'The service has customers in any country: no geographic restriction applies. Access is decided per request by sessions and API keys.',
    });
    if (!props.webAclArn) {
      Validations.of(distribution).acknowledge({
        id: 'AwsSolutions-CFR2',
        reason:
          "A CloudFront web ACL must be created in us-east-1 and the stack deploys to any region; set consoleWebAclArn to attach one made there. Without it, /api/* still passes the API stage's regional web ACL (threat lists, rate rule, known exploits, common rule set), and the rest of the distribution serves only the static files of a private bucket.",
      });
    }
    if (!props.domain) {
      Validations.of(distribution).acknowledge({
        id: 'AwsSolutions-CFR4',
        reason:
          'Without a custom domain the distribution answers on its *.cloudfront.net name with the CloudFront default certificate, whose security policy CloudFront fixes at TLSv1 and does not let a distribution change; current browsers negotiate TLS 1.3 or 1.2 with it. Set consoleDomainName and consoleCertificateArn (us-east-1) for the TLSv1.2_2021 minimum, which the stack then sets.',
      });
    }
    this.acknowledgeDeploymentHandler();
  }

  /**
   * CDK's BucketDeployment handler (a singleton Lambda per stack) copies the
   * built console into the bucket when the stack deploys, and runs at no
   * other time; its findings are acknowledged on it, with what it does.
   */
  private acknowledgeDeploymentHandler(): void {
    const stack = Stack.of(this);
    const handler = stack.node.children.find((child) =>
      child.node.id.startsWith('Custom::CDKBucketDeployment'),
    );
    if (!handler) return;
    const deployTimeOnly =
      "CDK's BucketDeployment handler runs only while the stack deploys, to copy the built console into its bucket.";
    Validations.of(handler).acknowledge(
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason: `${deployTimeOnly} CDK creates it with the AWS managed basic execution role (its logs).`,
      },
      ...['s3:GetBucket*', 's3:GetObject*', 's3:List*'].map((action) => ({
        id: `AwsSolutions-IAM5[Action::${action}]`,
        reason: `${deployTimeOnly} CDK grants it read on the CDK assets bucket the built console is uploaded to (${action}); nothing else.`,
      })),
      {
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
        reason: `${deployTimeOnly} It reads the console's zipped files from the CDK bootstrap's assets bucket, whose objects are named by content hash.`,
      },
      ...['s3:Abort*', 's3:DeleteObject*'].map((action) => ({
        id: `AwsSolutions-IAM5[Action::${action}]`,
        reason: `${deployTimeOnly} CDK grants it write on the console bucket's objects (${action}, with PutObject) to copy the files in.`,
      })),
      {
        id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnElement)}.Arn>/*]`,
        reason: `${deployTimeOnly} The wildcard is the objects of the console bucket, which holds only the built console.`,
      },
      {
        id: 'AwsSolutions-L1',
        reason: `${deployTimeOnly} CDK picks its runtime, with the AWS CLI layer it needs; it takes no request from anyone.`,
      },
      {
        id: 'Serverless-LambdaLatestVersion',
        reason: `${deployTimeOnly} CDK picks its runtime, with the AWS CLI layer it needs.`,
      },
      {
        id: 'Serverless-LambdaDLQ',
        reason: `${deployTimeOnly} CloudFormation invokes it and reports a failure by failing the deployment; there is no asynchronous event to keep.`,
      },
      {
        id: 'Serverless-LambdaTracing',
        reason: `${deployTimeOnly} One invocation per deployment, reported by CloudFormation; there is no request to trace.`,
      },
    );
  }
}

/** The built console, or an error naming what is missing and how to make it. */
function assertBuiltConsole(directory: string): void {
  const index = join(directory, 'index.html');
  const assets = join(directory, 'assets');
  const missing = [
    existsSync(index) ? undefined : index,
    existsSync(assets) && statSync(assets).isDirectory() ? undefined : `${assets}/`,
  ].filter((path): path is string => path !== undefined);
  if (missing.length > 0) {
    throw new Error(
      `The built console is incomplete (missing ${missing.join(' and ')}): build it with node web/build.mjs.`,
    );
  }
}
