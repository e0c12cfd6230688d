import { loadConfigs } from '../../config/configs';
import { PublicUrls } from './public-urls';

describe('PublicUrls', () => {
  it('builds absolute URLs on PUBLIC_BASE_URL, whose default follows PORT', () => {
    expect(new PublicUrls(loadConfigs({ PORT: '3501' }).server).absolute('/files/a.png')).toBe(
      'http://localhost:3501/files/a.png',
    );
    const urls = new PublicUrls(loadConfigs({ PUBLIC_BASE_URL: 'https://api.example.com/' }).server);
    expect(urls.absolute('/api/v2/sites/demo')).toBe('https://api.example.com/api/v2/sites/demo');
    expect(urls.absolute('files/x')).toBe('https://api.example.com/files/x');
  });

  it("uses a site's own base URL when it has one", () => {
    const urls = new PublicUrls(loadConfigs({}).server);
    expect(urls.absolute('/confirm/abc', 'https://news.example.org/')).toBe('https://news.example.org/confirm/abc');
  });
});
