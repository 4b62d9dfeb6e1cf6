/**
 * Pages for people, rendered on the server and usable without JavaScript: the recipient's page
 * behind html_url (/p/...), sign-in (password and single sign-on) and /users/token. They call the services the API calls, so
 * the two cannot disagree; sessions and CSRF live in PageSession.
 */
export * from './pages.module';
