import { migrationClassStem, registerMigration, renderMigration } from './migration-file';

describe('generated migration files', () => {
  it('names the class from a kebab-case name and refuses one that would not start with a letter', () => {
    expect(migrationClassStem('events')).toBe('Events');
    expect(migrationClassStem('add-event-slugs2')).toBe('AddEventSlugs2');
    for (const bad of ['src/database/migrations/1-events', '1-events', 'Events', 'add_events', ''])
      expect(() => migrationClassStem(bad)).toThrow(/kebab-case/);
  });

  it('writes up in order and down reversed, escaping template literals and keeping parameters', () => {
    const source = renderMigration(
      'Events1796000000000',
      [
        { query: 'CREATE TABLE "a" ("x" text DEFAULT \'`${y}`\')' },
        { query: 'INSERT INTO "b" VALUES ($1)', parameters: [1] },
      ],
      [{ query: 'DROP TABLE "a"' }, { query: 'DELETE FROM "b"' }],
    );
    expect(source).toContain('export class Events1796000000000 implements MigrationInterface {');
    expect(source).toContain("name = 'Events1796000000000';");
    expect(source).toContain('await queryRunner.query(`CREATE TABLE "a" ("x" text DEFAULT \'\\`\\${y}\\`\')`);');
    expect(source).toContain('await queryRunner.query(`INSERT INTO "b" VALUES ($1)`, [1]);');
    expect(source.indexOf('DELETE FROM "b"')).toBeLessThan(source.indexOf('DROP TABLE "a"'));
  });

  it('imports the class in migrations/index.ts and appends it to MIGRATIONS', () => {
    const index = [
      "import { A1 } from './1-a';",
      "import { B2 } from './2-b';",
      '/** Oldest first. */',
      'export const MIGRATIONS = [',
      '  A1,',
      '  B2,',
      '];',
      '',
    ].join('\n');
    expect(registerMigration(index, 'Events3', '3-events')).toBe(
      [
        "import { A1 } from './1-a';",
        "import { B2 } from './2-b';",
        "import { Events3 } from './3-events';",
        '/** Oldest first. */',
        'export const MIGRATIONS = [',
        '  A1,',
        '  B2,',
        '  Events3,',
        '];',
        '',
      ].join('\n'),
    );
  });
});
