import { Injectable } from '@nestjs/common';
import { PublicUrls } from '../common/http/public-urls';
import { MediaConfig } from './media.config';
import { MediaStorage } from './storage/media-storage';

/** Public URLs of stored files: the bucket's own URL when it has one, else the app's file route. */
@Injectable()
export class MediaLinks {
  private readonly appBase: string;

  constructor(
    config: MediaConfig,
    urls: PublicUrls,
    private readonly storage: MediaStorage,
  ) {
    this.appBase = urls.absolute(config.MEDIA_PUBLIC_PATH);
  }

  readonly linkOf = (storageKey: string): string =>
    this.storage.directUrl(storageKey) ?? `${this.appBase}/${storageKey}`;
}
