import { Provider } from '@nestjs/common';
import { MediaConfig } from '../media.config';
import { LocalMediaStorage } from './local.storage';
import { MediaStorage } from './media-storage';

/** The driver MEDIA_STORAGE names (docs/media.md). */
export const mediaStorageProvider: Provider = {
  provide: MediaStorage,
  inject: [MediaConfig],
  useFactory: (config: MediaConfig): MediaStorage => {
    if (config.MEDIA_STORAGE === 's3') {
      // Loaded only when chosen: the AWS SDK adds about 20 MB to every process that loads it.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { S3MediaStorage } = require('./s3.storage') as typeof import('./s3.storage');
      return new S3MediaStorage({
        bucket: config.S3_BUCKET,
        region: config.S3_REGION,
        endpoint: config.S3_ENDPOINT || undefined,
        accessKeyId: config.S3_ACCESS_KEY_ID || undefined,
        secretAccessKey: config.S3_SECRET_ACCESS_KEY || undefined,
        forcePathStyle: config.S3_FORCE_PATH_STYLE,
        publicUrl: config.S3_PUBLIC_URL || undefined,
      });
    }
    return new LocalMediaStorage(config.MEDIA_LOCAL_DIR);
  },
};
