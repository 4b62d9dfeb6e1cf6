/** Who made an authenticated request. */
export interface AuthenticatedUser {
  id: number;
  email: string;
}
