/** Who made an authenticated request. */
export interface AuthenticatedUser {
  id: number;
  email: string;
  /** Whether they have webhook or mail endpoints: only then are events on their pushes recorded. */
  hasWebhooks: boolean;
}

/** The caller as the requests see them, from their stored user. */
export function authenticatedUser(user: { id: number; email: string; hasWebhooks: boolean }): AuthenticatedUser {
  return { id: user.id, email: user.email, hasWebhooks: user.hasWebhooks };
}
