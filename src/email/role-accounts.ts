/**
 * Local parts that name a function, not a person (RFC 2142 and common practice): mail to
 * them reaches whoever holds the role, often a shared inbox.
 */
const ROLE_ACCOUNTS = new Set([
  "abuse",
  "admin",
  "administrator",
  "billing",
  "careers",
  "contact",
  "enquiries",
  "help",
  "helpdesk",
  "hostmaster",
  "hr",
  "info",
  "jobs",
  "legal",
  "mailer-daemon",
  "marketing",
  "newsletter",
  "no-reply",
  "noc",
  "noreply",
  "office",
  "postmaster",
  "press",
  "privacy",
  "root",
  "sales",
  "security",
  "support",
  "team",
  "webmaster",
]);

/** Whether the (unquoted, sub-address removed) local part names a role. */
export function isRoleAccount(local: string): boolean {
  return ROLE_ACCOUNTS.has(local.toLowerCase());
}
