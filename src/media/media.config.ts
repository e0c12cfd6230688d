import { Setting } from '../config/setting';
import { bool, folder, int, intList, oneOf, secret, size, token, webUrl } from '../config/setting-kinds';
import { bucketName, s3Region, urlPath } from '../config/setting-shapes';

/** Media (docs/media.md): where files are stored, what an upload may be, the variants made of it. */
export class MediaConfig {
  @Setting(oneOf(['local', 's3'])) MEDIA_STORAGE: 'local' | 's3' = 'local';
  @Setting(folder()) MEDIA_LOCAL_DIR = '.data/media';
  @Setting(urlPath()) MEDIA_PUBLIC_PATH = '/files';
  /** Spool folder for uploads in progress; empty: <MEDIA_LOCAL_DIR>/.tmp. */
  @Setting(folder()) MEDIA_TMP_DIR = '';
  @Setting(size('1kb', '5gb')) MEDIA_MAX_BYTES = 25 * 1024 * 1024;
  @Setting(int(1, 100)) MEDIA_MAX_FILES = 10;
  @Setting(intList(16, 8192, 10)) MEDIA_THUMBNAIL_WIDTHS: number[] = [150, 600, 1200];
  @Setting(int(1, 1_000_000_000)) MEDIA_MAX_PIXELS = 50_000_000;
  @Setting(int(1, 64)) MEDIA_PROCESSING_CONCURRENCY = 2;
  @Setting(bucketName(), { when: (c: MediaConfig) => c.MEDIA_STORAGE === 's3', because: 'MEDIA_STORAGE=s3' })
  S3_BUCKET = '';
  @Setting(s3Region()) S3_REGION = 'us-east-1';
  /** Empty: AWS itself; set for MinIO, R2 and other S3-compatible servers. */
  @Setting(webUrl('http://minio:9000')) S3_ENDPOINT = '';
  @Setting(secret(token(1, 'an access key id')), {
    when: (c: MediaConfig) => c.S3_SECRET_ACCESS_KEY !== '',
    because: 'S3_SECRET_ACCESS_KEY is set',
  })
  S3_ACCESS_KEY_ID = '';
  @Setting(secret(token(1, 'a secret access key')), {
    when: (c: MediaConfig) => c.S3_ACCESS_KEY_ID !== '',
    because: 'S3_ACCESS_KEY_ID is set',
  })
  S3_SECRET_ACCESS_KEY = '';
  @Setting(bool()) S3_FORCE_PATH_STYLE = false;
  /** Public origin of the bucket (CDN); empty: files are streamed through MEDIA_PUBLIC_PATH. */
  @Setting(webUrl('https://cdn.example.com/media')) S3_PUBLIC_URL = '';
}
