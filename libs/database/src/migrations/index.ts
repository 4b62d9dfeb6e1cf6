import { CreatePushesAndAudit1763769600000 } from './1763769600000-create-pushes-and-audit';

/** Every migration, oldest first. Add new ones at the end. */
export const MIGRATIONS = [CreatePushesAndAudit1763769600000];
