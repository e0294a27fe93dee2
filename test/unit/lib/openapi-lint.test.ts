import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';

/**
 * Warnings of the recommended rules the document keeps on purpose, each
 * with why. Anything else the rules report fails the test.
 */
const ACCEPTED_WARNINGS: ReadonlyArray<readonly [rule: string, pointer: string, why: string]> = [
  [
    'operation-2xx-response',
    '#/paths/~1api~1v1~1data-sources~1{id}~1files~1{document_id}~1content/get/responses',
    "answers with a redirect (302) to the file's download, never a 2xx of its own",
  ],
  [
    'operation-2xx-response',
    '#/paths/~1api~1v1~1sso~1oidc~1callback/get/responses',
    'a browser step of single sign-on: a redirect (303) once signed in',
  ],
  [
    'operation-2xx-response',
    '#/paths/~1api~1v1~1sso~1saml~1{org_id}/post/responses',
    'a browser step of single sign-on: a redirect (303) once signed in',
  ],
  [
    'no-unused-components',
    '#/components/schemas/QueryStreamEvent',
    "referred to by the event stream's x-itemSchema, which OpenAPI 3.1 tools do not follow",
  ],
  [
    'no-unused-components',
    '#/components/schemas/ChatCompletionsStreamEvent',
    'the same, for the OpenAI-compatible chat completion streamed',
  ],
];

/**
 * Redocly's `recommended` ruleset over docs/openapi.json, run through
 * @redocly/openapi-core's lint API (the engine of Redocly's CLI, without the
 * CLI): what third-party tooling would flag in the document, found here first.
 */
describe('OpenAPI reference (docs/openapi.json) under Redocly recommended rules', () => {
  it('has no errors, and only the warnings it keeps on purpose', async () => {
    const path = join(__dirname, '../../../docs/openapi.json');
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({
      source: readFileSync(path, 'utf8'),
      absoluteRef: path,
      config,
    });
    const described = problems.map(
      (problem) =>
        `${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer ?? ''}: ${problem.message}`,
    );
    const accepted = (line: string) =>
      ACCEPTED_WARNINGS.some(([rule, pointer]) => line.startsWith(`warn ${rule} at ${pointer}:`));
    expect(described.filter((line) => !accepted(line))).toEqual([]);
  });
});
