/** One statement of a generated migration, as TypeORM's schema builder gives it. */
export interface MigrationStatement {
  query: string;
  parameters?: unknown[];
}

/** `events-calendar` -> `EventsCalendar`; a name must start with a letter, so the class name is valid. */
export function migrationClassStem(name: string): string {
  if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(name))
    throw new Error(`migration name "${name}" must be kebab-case and start with a letter (e.g. add-events)`);
  return name
    .split('-')
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
}

function statement(s: MigrationStatement): string {
  const sql = s.query.replaceAll('\\', '\\\\').replaceAll('`', '\\`').replaceAll('${', '\\${');
  const params = s.parameters?.length ? `, ${JSON.stringify(s.parameters)}` : '';
  return `    await queryRunner.query(\`${sql}\`${params});`;
}

/** The source of `<timestamp>-<name>.ts`, in the shape of the hand-written migrations. */
export function renderMigration(className: string, up: MigrationStatement[], down: MigrationStatement[]): string {
  return [
    `import { MigrationInterface, QueryRunner } from 'typeorm';`,
    ``,
    `export class ${className} implements MigrationInterface {`,
    `  name = '${className}';`,
    ``,
    `  public async up(queryRunner: QueryRunner): Promise<void> {`,
    ...up.map(statement),
    `  }`,
    ``,
    `  public async down(queryRunner: QueryRunner): Promise<void> {`,
    // Undone in the reverse order of up.
    ...[...down].reverse().map(statement),
    `  }`,
    `}`,
    ``,
  ].join('\n');
}

/** `text` (a TypeScript file) with `line` after its last import statement, one- or many-lined. */
export function addImport(text: string, line: string, file = 'the file'): string {
  const lines = text.split('\n');
  let last = -1;
  for (let i = 0; i < lines.length; i++) if (/^import |^} from '/.test(lines[i]) && lines[i].endsWith(';')) last = i;
  if (last < 0) throw new Error(`${file} has no import to add one after`);
  lines.splice(last + 1, 0, line);
  return lines.join('\n');
}

/** migrations/index.ts with the new class imported and appended to MIGRATIONS (oldest first). */
export function registerMigration(index: string, className: string, fileStem: string): string {
  const end = index.lastIndexOf('\n];');
  if (end < 0) throw new Error('migrations/index.ts has no MIGRATIONS list');
  const listed = index.slice(0, end) + `\n  ${className},` + index.slice(end);
  return addImport(listed, `import { ${className} } from './${fileStem}';`, 'migrations/index.ts');
}
