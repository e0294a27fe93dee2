/**
 * What the first document of each type costs a parsing worker, whose parsers
 * are loaded at the first document that needs them (issue 33): the probe
 * (first-document-probe.ts) bundled as the workers are, then run in fresh
 * processes, one type per process, round-robin over the types.
 */
import { join } from 'node:path';
import { bundleFunction } from '../../lib/constructs/function-bundle';
import { runProbe } from './cold-start';
import { FIRST_DOCUMENT_TYPES, type FirstDocumentType } from './first-document-probe';

export interface FirstDocumentMeasurement {
  readonly type: FirstDocumentType;
  /** Parse and chunk of the process's first document, one per process. */
  readonly firstMs: readonly number[];
  /** The same document again, in the same process. */
  readonly secondMs: readonly number[];
  readonly error?: string;
}

/** Bundles the probe into `directory` and measures every type `processes` times. */
export async function measureFirstDocuments(
  directory: string,
  options: { readonly processes: number; readonly concurrency: number },
): Promise<FirstDocumentMeasurement[]> {
  const { file } = await bundleFunction(join(__dirname, 'first-document-probe.ts'), directory, {
    sourceMaps: false,
  });
  const results = new Map(
    FIRST_DOCUMENT_TYPES.map((type) => [
      type,
      { firstMs: [] as number[], secondMs: [] as number[], error: undefined as string | undefined },
    ]),
  );
  const jobs = Array.from({ length: options.processes }, () => FIRST_DOCUMENT_TYPES).flat();
  let next = 0;
  async function worker(): Promise<void> {
    for (let type = jobs[next++]; type; type = jobs[next++]) {
      const result = results.get(type);
      if (!result || result.error !== undefined) continue;
      // Nothing of the bench's environment: no TypeScript loader, no NODE_OPTIONS.
      const sample = await runProbe([file, type], directory, { PATH: process.env.PATH ?? '' });
      if ('error' in sample) result.error = sample.error;
      else {
        result.firstMs.push(Number(sample.report.firstMs));
        result.secondMs.push(Number(sample.report.secondMs));
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, () => worker()));
  return FIRST_DOCUMENT_TYPES.map((type) => {
    const { firstMs, secondMs, error } = results.get(type) ?? { firstMs: [], secondMs: [] };
    return { type, firstMs, secondMs, ...(error === undefined ? {} : { error }) };
  });
}
