import { group, integer } from './setting';

export const AUDIT = group({
  title: 'Audit',
  settings: {
    maxEntriesPerPush: integer({
      name: 'AUDIT_MAX_ENTRIES_PER_PUSH',
      default: 2000,
      min: 10,
      max: 1_000_000,
      meaning:
        'Most audit entries per push: past it, failed views and failed passphrases are no longer recorded (everything else still is), so hammering a link cannot grow the table without bound.',
    }),
  },
});
