import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleFunction } from '/work/wt-bedrock/lib/constructs/function-bundle';
(async () => {
  for (const name of process.argv.slice(2)) {
    const dir = mkdtempSync(join(tmpdir(), 'bundle-'));
    const bundle = await bundleFunction(`/work/wt-bedrock/functions/${name}/handler.ts`, dir, { sourceMaps: false });
    const inputs = Object.entries(bundle.metafile.outputs[Object.keys(bundle.metafile.outputs)[0]!]!.inputs)
      .filter(([p]) => /bedrock|node-http-handler/.test(p))
      .map(([p, i]) => `${p} ${i.bytesInOutput}`);
    console.log(name, statSync(bundle.file).size, bundle.firstUse.map((f) => f.name).join(','), '\n  ', inputs.join('\n   '));
  }
})();
