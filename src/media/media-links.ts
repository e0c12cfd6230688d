import { Injectable } from '@nestjs/common';
import { PublicUrls } from '../common/http/public-urls';
import { AppConfig } from '../config/app-config';
import { MediaStorage } from './storage/media-storage';

/** Public URLs of stored files: the bucket's own URL when it has one, else the app's file route. */
@Injectable()
export class MediaLinks {
  private readonly appBase: string;

  constructor(
    config: AppConfig,
    urls: PublicUrls,
    private readonly storage: MediaStorage,
  ) {
    this.appBase = urls.absolute(config.MEDIA_PUBLIC_PATH);
  }

  readonly linkOf = (storageKey: string): string =>
    this.storage.directUrl(storageKey) ?? `${this.appBase}/${storageKey}`;
}
