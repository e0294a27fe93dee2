/**
 * `npm run openapi`: writes docs/openapi.json from the route table and each
 * operation's zod schemas, so the reference cannot drift from the code
 * (a test checks the committed file is current).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOpenApiDocument } from '../lib/openapi';

const target = join(__dirname, '..', 'docs', 'openapi.json');
writeFileSync(target, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
console.log(`Wrote ${target}`);
