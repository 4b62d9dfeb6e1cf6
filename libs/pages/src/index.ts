/**
 * Pages for people, rendered on the server and usable without JavaScript: the recipient's page
 * behind html_url (/p/...), the owner's pages (the push form at /, the push-created page, the
 * dashboard, a push's audit log and "Expire now"), sign-in (password and single sign-on) and
 * /users/token, all under the instance's brand. They call the services the API calls, so
 * the two cannot disagree; sessions and CSRF live in PageSession.
 */
export * from './pages.module';
