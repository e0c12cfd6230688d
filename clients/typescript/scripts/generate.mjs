// Writes src/generated/openapi.ts: the types openapi-typescript makes of the document in
// openapi.json (what the server serves at /docs/openapi.json), binary fields as Blob.
// Usage: node scripts/generate.mjs [document] [output]; no network.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = process.argv[2] ?? join(root, 'openapi.json');
const target = process.argv[3] ?? join(root, 'src', 'generated', 'openapi.ts');

const blob = ts.factory.createTypeReferenceNode('Blob');
const ast = await openapiTS(readFileSync(source, 'utf8'), {
  transform: (schema) => (schema.format === 'binary' ? blob : undefined),
});
mkdirSync(dirname(target), { recursive: true });
writeFileSync(
  target,
  '// Generated from openapi.json by scripts/generate.mjs (npm run build): do not edit.\n\n' + astToString(ast),
);
console.log(`${target}: generated from ${source}`);
