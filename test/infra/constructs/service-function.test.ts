import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ServiceFunction, SOURCE_MAPS_CONTEXT } from '../../../lib/constructs/service-function';

/** A functions/ folder with one handler importing a second module, so the bundle is a real bundle. */
function functionsDir(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-functions-'));
  fs.mkdirSync(path.join(root, 'greeter'));
  fs.writeFileSync(
    path.join(root, 'greeter', 'greeting.ts'),
    "export const greeting = (name: string): string => 'hello ' + name;\n",
  );
  fs.writeFileSync(
    path.join(root, 'greeter', 'handler.ts'),
    "import { greeting } from './greeting';\nexport const handler = async () => ({ statusCode: 200, body: greeting('world') });\n",
  );
  return root;
}

function synthesize(sourceMaps: boolean | undefined) {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cdk-out-'));
  const app = new App({ outdir });
  const stack = new Stack(app, 'Functions');
  if (sourceMaps !== undefined) stack.node.setContext(SOURCE_MAPS_CONTEXT, sourceMaps);
  const fn = new ServiceFunction(stack, 'Greeter', {
    folder: 'greeter',
    description: 'says hello',
    functionsDir: functionsDir(),
  });
  const template = Template.fromStack(stack);
  const assembly = app.synth();
  const variables = Object.values(template.findResources('AWS::Lambda::Function'))[0]?.Properties
    .Environment.Variables as Record<string, string>;
  const assetDir = path.join(
    assembly.directory,
    fs.readdirSync(assembly.directory).find((name) => name.startsWith('asset.')) ?? 'missing',
  );
  return { fn, template, variables, files: fs.readdirSync(assetDir).sort(), assetDir };
}

describe('Class: ServiceFunction', () => {
  it('bundles its handler in-process into one index.js, with no source map and no --enable-source-maps (P54)', () => {
    const { template, variables, files, assetDir } = synthesize(undefined);

    template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.handler',
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      TracingConfig: { Mode: 'Active' },
    });
    expect(variables).toEqual({ POWERTOOLS_SERVICE_NAME: 'svc-greeter' });
    expect(files).toEqual(['index.js']);
    // The second module is inside the bundle, not beside it.
    const bundled = require(path.join(assetDir, 'index.js')) as {
      handler: () => Promise<{ body: string }>;
    };
    return expect(bundled.handler()).resolves.toMatchObject({ body: 'hello world' });
  });

  it('ships index.js.map and turns source maps on when the stack asks (functionSourceMaps, P54)', () => {
    const { variables, files } = synthesize(true);

    expect(variables.NODE_OPTIONS).toBe('--enable-source-maps');
    expect(files).toEqual(['index.js', 'index.js.map']);
  });

  it('names the family whose handler is missing', () => {
    const stack = new Stack(new App(), 'Functions');
    expect(
      () =>
        new ServiceFunction(stack, 'Nobody', {
          folder: 'nobody',
          description: 'missing',
          functionsDir: functionsDir(),
        }),
    ).toThrow(/No handler for function "nobody"/);
  });
});
