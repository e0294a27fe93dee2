import * as path from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { type BuildOptions, buildSync } from 'esbuild';

/**
 * How every function is bundled, and what `npm run bench` and the bundle
 * tests measure: minified CommonJS for the Lambda runtime's Node.js, with
 * the AWS SDK v3 left out because the runtime ships it.
 */
export const LAMBDA_BUNDLING = {
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'cjs',
  minify: true,
  external: ['@aws-sdk/*'],
  alias: {
    // P53: only the X-Ray SDK's AWS SDK v2 patcher requires semver, for a call the service never makes.
    semver: path.resolve(__dirname, '..', 'bundling', 'semver-unused.cjs'),
  },
} as const satisfies BuildOptions;

/** Modules the Lambda Node.js runtime provides, so no bundle carries them. */
export const PROVIDED_BY_RUNTIME: readonly string[] = LAMBDA_BUNDLING.external;

export interface FunctionBundleOptions {
  /**
   * Ship `index.js.map` (no sources content) beside the bundle. Only useful
   * with `NODE_OPTIONS=--enable-source-maps`, which costs every cold start
   * (P54), so it is off unless a deployment asks for it.
   */
  readonly sourceMaps: boolean;
}

/**
 * The code of one function: `entry` bundled by esbuild in this process when
 * the stack synthesizes (P54). CDK's NodejsFunction started `npm exec
 * esbuild` once per function, about 1.5 s each here (most of a 32 s synth)
 * and printed every bundle's report into `cdk synth` and `npm test`. The
 * asset hash is the bundle's, so an unchanged function is not redeployed.
 * There is no Docker fallback: esbuild always runs here.
 */
export function bundledFunctionCode(entry: string, options: FunctionBundleOptions): lambda.Code {
  return lambda.Code.fromAsset(path.dirname(entry), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Required by the type, never pulled: local bundling always succeeds or throws.
      image: DockerImage.fromRegistry('esbuild-runs-locally'),
      // CDK reuses a bundle within one process by the asset's options, which
      // do not see inside `tryBundle`: the flag must be among them.
      environment: { SOURCE_MAPS: String(options.sourceMaps) },
      local: {
        tryBundle(outputDir: string): boolean {
          buildFunction(entry, path.join(outputDir, 'index.js'), options);
          return true;
        },
      },
    },
  });
}

/** Writes `outfile` (and its map, with `sourceMaps`); throws with esbuild's errors when the entry does not build. */
function buildFunction(entry: string, outfile: string, options: FunctionBundleOptions): void {
  buildSync({
    ...LAMBDA_BUNDLING,
    external: [...LAMBDA_BUNDLING.external],
    entryPoints: [entry],
    outfile,
    sourcemap: options.sourceMaps,
    sourcesContent: false,
    // Errors still throw, with esbuild's messages; success prints nothing.
    logLevel: 'silent',
  });
}
