// Writes src/generated/openapi.ts: the types openapi-typescript makes of the document in
// openapi.json (what the server serves at /docs/openapi.json), binary fields as Blob; and
// src/generated/permissions.ts: each operation's `x-sitebase-permission` and `x-sitebase-publishable`,
// which the types leave out.
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
const text = readFileSync(source, 'utf8');
const ast = await openapiTS(text, {
  transform: (schema) => (schema.format === 'binary' ? blob : undefined),
});
mkdirSync(dirname(target), { recursive: true });
writeFileSync(
  target,
  '// Generated from openapi.json by scripts/generate.mjs (npm run build): do not edit.\n\n' + astToString(ast),
);
console.log(`${target}: generated from ${source}`);

const permissions = {};
const publishable = [];
for (const item of Object.values(JSON.parse(text).paths))
  for (const op of Object.values(item)) {
    if (op?.operationId && op['x-sitebase-permission']) permissions[op.operationId] = op['x-sitebase-permission'];
    if (op?.operationId && op['x-sitebase-publishable'] === true) publishable.push(op.operationId);
  }
const permissionsTarget = join(dirname(target), 'permissions.ts');
writeFileSync(
  permissionsTarget,
  '// Generated from openapi.json by scripts/generate.mjs (npm run build): do not edit.\n\n' +
    '/** The permission a key needs for each operation (by operationId), as the document states it. */\n' +
    `export const OPERATION_PERMISSIONS = ${JSON.stringify(permissions, null, 2)} as const;\n\n` +
    '/** The operations a publishable key (`sb_pub_…`) may call, as the document states it. */\n' +
    `export const PUBLISHABLE_OPERATIONS = ${JSON.stringify(publishable.sort(), null, 2)} as const;\n`,
);
console.log(`${permissionsTarget}: generated from ${source}`);
