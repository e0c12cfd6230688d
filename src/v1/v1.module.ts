import { Module } from '@nestjs/common';

/**
 * v1 legacy routes (INTERFACE.md §4.1): thin adapters over the v2 services, snake_case fields,
 * every success 200 except the project media routes (204). Every /v1 path needs `x-api-key`
 * (CredentialsMiddleware); the AuthGuard resolves `site_name` or `organization_id`/`project_id`.
 * Each resource adds its controller here and imports the module whose service it adapts.
 */
@Module({
  imports: [],
  controllers: [],
})
export class V1Module {}
