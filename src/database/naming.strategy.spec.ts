import { snakeCase, SnakeNamingStrategy } from './naming.strategy';

describe('snake_case names', () => {
  it.each([
    ['siteId', 'site_id'],
    ['createdAt', 'created_at'],
    ['option1Value', 'option1_value'],
    ['unitAmount2', 'unit_amount2'],
    ['HTMLBody', 'html_body'],
    ['smtpURLHost', 'smtp_url_host'],
    ['ContentItemEntity', 'content_item_entity'],
    ['already_snake', 'already_snake'],
    ['', ''],
  ])('%s -> %s', (name, expected) => {
    expect(snakeCase(name)).toBe(expected);
  });

  it('names columns, embedded ones and join columns as the migrations have them', () => {
    const naming = new SnakeNamingStrategy();
    expect(naming.columnName('lastSignInAt', undefined, [])).toBe('last_sign_in_at');
    expect(naming.columnName('amount', undefined, ['unitPrice'])).toBe('unit_price_amount');
    expect(naming.columnName('ignored', 'custom_name', [])).toBe('custom_name');
    expect(naming.joinColumnName('siteUser', 'id')).toBe('site_user_id');
    expect(naming.tableName('SiteUserEntity', undefined)).toBe('site_user_entity');
    expect(naming.tableName('SiteUserEntity', 'site_users')).toBe('site_users');
  });

  it('names foreign keys as PostgreSQL named those of the migrations, TypeORM as its migrations did', () => {
    const naming = new SnakeNamingStrategy();
    expect(naming.foreignKeyName('orders', ['site_id'])).toBe('orders_site_id_fkey');
    expect(naming.foreignKeyName('newsletter_tracking_events', ['campaign_id', 'subscription_id'])).toBe(
      'newsletter_tracking_events_campaign_id_subscription_id_fkey',
    );
    expect(naming.foreignKeyName('collection_items', ['content_id'])).toBe('FK_4742e1041e48a18d456e7e93558');
  });
});
