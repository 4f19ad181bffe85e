/**
 * Words that name a throwaway-mail service, found in the part of a domain before its
 * public suffix: `10minutemail`, `temp-mail`, `trash-mail`, `throwawayemail`,
 * `disposableemail`, `guerrillamail` …. Of the 8,760 names of the email-providers list
 * it matches 404, every one a throwaway or anti-spam service; the disposable lists
 * already carry all but a few dozen of them.
 */
const THROWAWAY_WORDS =
  /te?mp-?(e?mail|inbox|box|mails?\b)|(?<!con|ex)tempor|trash|throw-?away|dispos[a-z]*|burner|fake-?(e?mail|inbox|box)|spam|junk|\d*-?minut[a-z]*-?mail|guerr?illa|mailinator|yopmail|discard|jetable|wegwerf|einweg|wergwerf|sharklasers|mailnesia/;

/** Whether the registrable part of `domain` (lower-case ASCII) reads like a throwaway service. */
export function looksThrowaway(domain: string, publicSuffix: string): boolean {
  return THROWAWAY_WORDS.test(domain.slice(0, domain.length - publicSuffix.length));
}
