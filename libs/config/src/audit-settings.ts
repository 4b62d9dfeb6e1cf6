import { flag, group, integer } from './setting';

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
    stdout: flag({
      name: 'PWP__AUDIT__STDOUT',
      default: false,
      meaning:
        'true: every audit entry (what happened to a push) and security event (what happened to an account, administrative actions included) is also written to standard output as one JSON line ({"audit": {...}}), for a log shipper to take to a SIEM; fields in docs/administration.md.',
    }),
  },
});
