import { DisposableEvidence, type SourceInput } from "./disposable-evidence.ts";
import { type FamilyCandidate, familyCandidates } from "./families.ts";
import type { ListedNames } from "./listed-names.ts";
import { publicSuffixOfNormalised } from "./public-suffix.ts";

/**
 * The disposable lists compiled: each list apart (for witnesses and explanations), and for
 * each kind every name listed with the strength of its listing, so that serving them under
 * any evidence rule is a read. `update` writes it into a version; a version made before
 * that has it compiled at load.
 */
export interface CompiledEvidence {
  readonly evidence: DisposableEvidence;
  readonly exact: ListedNames;
  readonly wildcard: ListedNames;
  /** The exactly listed names that are public suffixes: they flag themselves, never their subdomains. */
  readonly suffixes: readonly string[];
  /** The registrable domains with two or more exactly listed subdomains: what families are made of. */
  readonly families: readonly FamilyCandidate[];
}

export function compileEvidence(sources: readonly SourceInput[]): CompiledEvidence {
  const evidence = DisposableEvidence.build(sources);
  const exact = evidence.listedNames(false);
  const suffixes: string[] = [];
  for (const name of exact.names) if (publicSuffixOfNormalised(name) === name) suffixes.push(name);
  return { evidence, exact, wildcard: evidence.listedNames(true), suffixes, families: familyCandidates(exact) };
}
