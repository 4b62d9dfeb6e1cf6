/** An administration request that cannot be carried out (duplicate email, unknown user, bad input). */
export class AccountError extends Error {}
