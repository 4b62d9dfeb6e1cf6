/**
 * Cryptography: field encryption at rest (AES-256-GCM with a rotating key ring),
 * passphrase hashing (Argon2id) and random tokens.
 */
export * from './crypto.module';
export * from './field-cipher';
export * from './passphrase-hasher';
export * from './random-token';
export * from './master-key';
export * from './stream-cipher';
