/** Who made an authenticated request. */
export interface AuthenticatedUser {
  id: number;
  email: string;
  /** Whether they have webhook or mail endpoints: only then are events on their pushes recorded. */
  hasWebhooks: boolean;
  /** The language code the person chose for the pages and their mails (the account page), if any. */
  preferredLanguage?: string | null;
  /** Present (true) for an administrator: their retrieval of someone's push is an `admin_view`, not counted. */
  admin?: boolean;
}

/** The caller as the requests see them, from their stored user. */
export function authenticatedUser(user: { id: number; email: string; hasWebhooks: boolean; preferredLanguage?: string | null; admin?: boolean }): AuthenticatedUser {
  return {
    id: user.id,
    email: user.email,
    hasWebhooks: user.hasWebhooks,
    ...(user.preferredLanguage && { preferredLanguage: user.preferredLanguage }),
    ...(user.admin === true && { admin: true as const }),
  };
}
