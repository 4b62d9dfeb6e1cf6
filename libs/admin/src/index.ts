/**
 * Administration: the center under /admin for the instance's administrators (counts, people and
 * the actions on them, every push's metadata and "Expire", the audit log and its exports,
 * notification records, custom CSS). It reads through the other libraries' public faces and never
 * their tables; nothing imports it. AdminGuard is its one gate.
 */
export * from './admin.module';
