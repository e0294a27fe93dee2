'use strict';
/**
 * What a Lambda bundle gets for `semver` (P53; the esbuild alias in
 * lib/constructs/function-bundle.ts). The only module that requires semver
 * is the X-Ray SDK's patcher for the AWS SDK for JavaScript v2
 * (aws-xray-sdk-core/dist/lib/patchers/aws_p.js, loaded with the Powertools
 * Tracer), and it calls `semver.gte` in one place: `captureAWS(awssdk)`,
 * checking the v2 SDK's version. The service has no v2 SDK and captures v3
 * clients only (layers/core/observability/tracing.ts), so that call never
 * happens and the whole of semver (29 KB minified) was dead weight in every
 * function. test/infra/function-bundles.test.ts fails if another module
 * starts requiring semver, or aws_p.js uses it anywhere else.
 */
module.exports = {
  gte() {
    throw new Error(
      'semver is not bundled (docs/decisions/code-and-build.md): the X-Ray SDK needs it only for captureAWS, the AWS SDK v2 patcher, which this service does not use',
    );
  },
};
