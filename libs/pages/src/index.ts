/**
 * Pages for people, rendered on the server and usable without JavaScript: the recipient's page
 * behind html_url (/p/...), the owner's pages (the push form at /, the push-created page, the
 * dashboard, a push's audit log and "Expire now"), sign-in (password and single sign-on) and
 * /users/token, all under the instance's brand. They call the services the API calls, so
 * the two cannot disagree; sessions and CSRF live in PageSession.
 */
export * from './pages.module';
// For the administration's pages (libs/admin): the same responder, session, CSRF, failures and words.
export { PageResponder, type PageResult } from './page-responder';
export { PageSession, formField } from './page-session';
export { PageExceptionFilter, GONE, message } from './page-exception.filter';
export { dateText, durationText, filesHintText, sizeText, text, type TextKey } from './page-text';
export type { AdminView, RequestView } from './page-renderer';
// For the secret requests' pages (libs/requests): the signed-in person of a page request.
export { SessionUser, SessionUserGuard } from './session-user.guard';
export { formErrors, ownedOrGone, signInFirst, wrappedForm } from './owner-pages';
export { TWO_FACTOR_SETUP_PATH } from './two-factor-pages';
