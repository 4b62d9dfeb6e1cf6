/**
 * Secret requests: a signed-in person asks someone to send them a secret. The responder answers
 * once through the link; only the requester reads the answer, which is encrypted at rest and
 * destroyed with its files when the request closes (by its owner, its time, or the sweep). Built
 * on the public faces of crypto, files, audit and pushes (the passphrase and durations' rules).
 */
export { RequestsModule } from './requests.module';
export { RequestsSweepModule } from './requests-sweep.module';
export { RequestPagesModule } from './pages/request-pages.module';
export { RequestsService, REQUEST_LISTS, type RequestList } from './requests.service';
export { RequestsSweepService, type RequestsSweepResult } from './requests-sweep.service';
export { RequestEntity, REQUEST_STATES, type RequestState } from './request.entity';
