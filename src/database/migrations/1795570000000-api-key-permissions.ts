import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A key's permissions (docs/foundation.md, "Permissions"): NULL is every permission, so the keys
 * made before this (and keys created without permissions) keep full access.
 */
export class ApiKeyPermissions1795570000000 implements MigrationInterface {
  name = 'ApiKeyPermissions1795570000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_keys" ADD "permissions" text array`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "permissions"`);
  }
}
