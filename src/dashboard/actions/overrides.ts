import { normaliseDomain } from "../../email/domain-name.ts";
import { type LineFilter, OverrideError, overrideLine, publicSuffixForced } from "../../email/overrides.ts";
import { parseCidr } from "../../ip/address/address-range.ts";
import { parseIpAddress } from "../../ip/address/parse.ts";
import { ipOverrideLine, ipOverrideTarget, rangeForced, targetOfRange } from "../../ip/overrides/ip-override.ts";
import type { DashboardDeps } from "../dashboard-deps.ts";
import { field } from "../forms.ts";
import type { AuthorisedPost, ClientInfo, Gate, SignedIn } from "../gate.ts";
import { type CheckedAddress, ipOverrideConfirmPage } from "../pages/ip-check.ts";
import type { Notice } from "../pages/notice.ts";
import { OVERRIDE_PAGES, type OverrideKind, type ShownLine, overridesPage } from "../pages/overrides.ts";
import { doneNotice, page, redirect } from "../responses.ts";

/** A line the form asks for, checked, and how to store it as the signed-in user. */
interface NewLine {
  readonly target: string;
  readonly action: "allow" | "deny";
  readonly reason: string;
  put(post: AuthorisedPost): Promise<unknown>;
}

/** What differs between the email and the IP lines' actions. */
interface OverrideLines {
  readonly notices: ReadonlyMap<string, string>;
  /** The page without a session: the sign-in form (email), or the way back to the dashboard's first page (IP). */
  readonly signedOut: "sign-in" | "back";
  /** Whether the page checks an address (`?check=`) and shows a line once more before adding it. */
  readonly checksFirst: boolean;
  /** At most `limit` stored lines the page lists, after the target `after` (null: the first page), that the filter holds. */
  lines(
    deps: DashboardDeps,
    filter: LineFilter,
    after: string | null,
    limit: number,
  ): Promise<Omit<ShownLine, "active">[]>;
  /** Lines of a file that apply too, shown first on the first page (the IP allowlist file's, a few). */
  fileLines(deps: DashboardDeps, filter: LineFilter): Omit<ShownLine, "active">[];
  /** Throws an OverrideError naming what is wrong. */
  line(form: URLSearchParams, now: Date): NewLine;
  /** The stored target the remove form names; throws an OverrideError when it names none. */
  removal(text: string): string;
  remove(post: AuthorisedPost, target: string): Promise<unknown>;
  /** Serves the lines as stored now, in this instance. */
  refresh(deps: DashboardDeps): Promise<void>;
  /** An OverrideError's message, the CLI's flags said as the form's fields. */
  inFormWords(message: string): string;
}

const AUTHOR = "dashboard";
/** Lines a page shows: a page stays small however many lines there are. */
const LINES_PER_PAGE = 50;

/** The page's filters and where it starts, as the address bar gives them. */
interface Query {
  readonly filter: LineFilter;
  readonly after: string | null;
}

/** `?action=&target=&after=`, each checked: a wrong one is the page's 400 with a sentence. */
function listingOf(params: URLSearchParams): Query | { error: string } {
  const action = params.get("action") || undefined;
  if (action !== undefined && action !== "allow" && action !== "deny") return { error: "Choose allow or deny." };
  const prefix = params.get("target")?.trim() || undefined;
  const after = params.get("after") || null;
  for (const text of [prefix, after])
    if (text !== undefined && text !== null && (text.length > 255 || /[\p{Cc}\p{Cf}]/u.test(text)))
      return { error: "A target is at most 255 characters, without control characters." };
  return { filter: { ...(action ? { action } : {}), ...(prefix ? { prefix } : {}) }, after };
}

const KINDS: Readonly<Record<OverrideKind, OverrideLines>> = {
  email: {
    notices: new Map([
      ["added", "The line was added; every running server applies it within 10 s."],
      ["removed", "The line was removed; the lists decide again."],
    ]),
    signedOut: "sign-in",
    checksFirst: false,
    lines: async (deps, filter, after, limit) =>
      (await deps.emailOverrides.page(filter, after, limit)).map((l) => ({ ...l, target: l.domain })),
    fileLines: () => [],
    line: (form, now) => {
      const line = overrideLine(
        {
          domain: field(form, "domain") ?? "",
          action: field(form, "action") as "allow" | "deny",
          reason: field(form, "reason") ?? "",
          author: AUTHOR,
          until: field(form, "until") || null,
          force: field(form, "force") === "yes",
        },
        now,
      );
      const forced = line.domain && field(form, "force") === "yes" ? publicSuffixForced(line.domain) : null;
      return { ...line, target: line.domain, put: (post) => post.emailOverrides.put(line, forced) };
    },
    removal: (text) => {
      const domain = normaliseDomain(text);
      if (domain === null) throw new OverrideError("That is not a domain name.");
      return domain;
    },
    remove: (post, domain) => post.emailOverrides.remove(domain),
    refresh: (deps) => deps.refreshOverrides(),
    inFormWords: (message) =>
      message
        .replace("--reason", "a reason")
        .replace("--until", "the date")
        .replace("insist with --force", "tick “even on a public suffix” to insist"),
  },
  ip: {
    notices: new Map([
      ["added", "The line was added; every running server applies it within 3 s."],
      ["removed", "The line was removed; the feeds decide again."],
    ]),
    signedOut: "back",
    checksFirst: true,
    lines: (deps, filter, after, limit) => deps.ipOverrides.page(filter, after, limit),
    fileLines: (deps, filter) =>
      deps
        .ipAllowlistFile()
        .filter((l) => (filter.action ?? "allow") === "allow" && l.target.startsWith(filter.prefix ?? ""))
        .map((l) => ({ ...l, action: "allow" as const, fromFile: true })),
    line: (form, now) => {
      const line = ipOverrideLine(
        {
          target: field(form, "target") ?? "",
          action: field(form, "action") as "allow" | "deny",
          reason: field(form, "reason") ?? "",
          author: AUTHOR,
          until: field(form, "until") || null,
          force: field(form, "force") === "yes",
        },
        now,
      );
      const forced = field(form, "force") === "yes" ? rangeForced(line.target) : null;
      return { ...line, put: (post) => post.ipOverrides.put(line, forced) };
    },
    removal: (text) => ipOverrideTarget(text).text,
    remove: (post, target) => post.ipOverrides.remove(target),
    refresh: (deps) => deps.refreshIpOverrides(),
    inFormWords: (message) =>
      message
        .replace("--reason", "a reason")
        .replace("--until", "the date")
        .replace("insist with --force", "tick “even broader than /8” to insist"),
  },
};

/**
 * `/dashboard/email` and `/dashboard/ip`: the override lines of one kind listed, added and
 * removed; on the IP page, an address checked first and a line confirmed before it is added.
 */
export class OverridesActions {
  private readonly lines: OverrideLines;

  constructor(
    private readonly deps: DashboardDeps,
    private readonly gate: Gate,
    private readonly kind: OverrideKind,
  ) {
    this.lines = KINDS[kind];
  }

  private get path(): string {
    return OVERRIDE_PAGES[this.kind].path;
  }

  async view(request: Request, client: ClientInfo): Promise<Response> {
    const current =
      this.lines.signedOut === "sign-in"
        ? await this.gate.sessionOrSignIn(request, client)
        : await this.gate.sessionOrBack(request);
    if (current instanceof Response) return current;
    const params = new URL(request.url).searchParams;
    const listing = listingOf(params);
    if ("error" in listing) return this.page(current, null, { text: listing.error, error: true }, 400);
    return this.page(current, params.get("check"), doneNotice(request, this.lines.notices), 200, listing);
  }

  async add(request: Request, client: ClientInfo): Promise<Response> {
    const current = await this.gate.authorisedPost(request, client);
    if (current instanceof Response) return current;
    const { form } = current;
    const checked = field(form, "checked") || null;
    const action = field(form, "action");
    if (action !== "allow" && action !== "deny")
      return this.page(current, checked, { text: "Choose allow or deny.", error: true }, 400);
    try {
      const line = this.lines.line(form, new Date(this.deps.now()));
      if (this.lines.checksFirst && field(form, "confirm") !== "yes")
        return page(
          ipOverrideConfirmPage(
            {
              ...line,
              until: field(form, "until") ?? "",
              checked: checked ?? "",
              force: field(form, "force") === "yes",
            },
            current.session.csrfToken,
          ),
        );
      await line.put(current);
    } catch (err) {
      if (!(err instanceof OverrideError)) throw err;
      const text = `The line was not added: ${this.lines.inFormWords(err.message)}.`;
      return this.page(current, checked, { text, error: true }, 400);
    }
    await this.lines.refresh(this.deps);
    const again = this.lines.checksFirst && checked ? `&check=${encodeURIComponent(checked)}` : "";
    return redirect(`${this.path}?done=added${again}`);
  }

  async remove(request: Request, client: ClientInfo): Promise<Response> {
    const current = await this.gate.authorisedPost(request, client);
    if (current instanceof Response) return current;
    let target: string;
    try {
      target = this.lines.removal(field(current.form, OVERRIDE_PAGES[this.kind].target.name) ?? "");
    } catch (err) {
      if (!(err instanceof OverrideError)) throw err;
      return this.page(current, null, { text: err.message, error: true }, 400);
    }
    await this.lines.remove(current, target);
    await this.lines.refresh(this.deps);
    return redirect(`${this.path}?done=removed`);
  }

  private async page(
    current: SignedIn,
    check: string | null,
    notice?: Notice,
    status = 200,
    listing: Query = { filter: {}, after: null },
  ): Promise<Response> {
    const nowMs = this.deps.now();
    const found = await this.lines.lines(this.deps, listing.filter, listing.after, LINES_PER_PAGE + 1);
    const stored = found.slice(0, LINES_PER_PAGE);
    const lines = [...(listing.after === null ? this.lines.fileLines(this.deps, listing.filter) : []), ...stored].map(
      (l) => ({ ...l, active: l.until === null || Date.parse(l.until) > nowMs }),
    );
    const checked = this.lines.checksFirst && check !== null && check.trim() !== "" ? this.checked(check.trim()) : null;
    const shown = {
      ...listing.filter,
      ...(listing.after === null ? {} : { after: listing.after }),
      next: found.length > LINES_PER_PAGE ? stored[stored.length - 1].target : null,
    };
    return page(
      overridesPage(this.kind, { lines, listing: shown, csrfToken: current.session.csrfToken, notice, checked }),
      status,
    );
  }

  /** The address's answer, and the lines the page offers: the address, its /24 (IPv6: /48), its network. */
  private checked(input: string): CheckedAddress {
    const ip = parseIpAddress(input);
    if (ip === null) return { input, answer: null, offers: [] };
    const answer = this.deps.checkAddress(ip);
    const range = targetOfRange(parseCidr(`${ip.text}/${ip.version === 4 ? 24 : 48}`)!);
    const asn = /^AS(\d+) /.exec(answer.asn)?.[1];
    return {
      input,
      answer,
      offers: [
        { label: "Allow this address", target: ip.text },
        { label: "Allow this range", target: range },
        ...(asn ? [{ label: "Allow this network", target: `AS${asn}` }] : []),
      ],
    };
  }
}
