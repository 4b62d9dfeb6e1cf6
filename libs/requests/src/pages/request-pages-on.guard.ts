import { CanActivate, Injectable } from '@nestjs/common';
import { NotFoundError } from '@app/common';
import { InjectSettings, type Settings } from '@app/config';

/** With PWP__ENABLE_REQUESTS off, every page of requests is the neutral 404, before anything else runs (a body is not read). */
@Injectable()
export class RequestPagesOn implements CanActivate {
  constructor(@InjectSettings() private readonly settings: Settings) {}

  canActivate(): boolean {
    if (!this.settings.requests.enabled) throw new NotFoundError();
    return true;
  }
}
