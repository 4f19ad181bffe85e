/**
 * Hand-checked answers of the email check: [address, is_disposable, free_email, why].
 * Expectations come from what each service is (its own site, the lists' issue trackers),
 * not from riskcheck's output. They must hold on the bundled data and after a default
 * update from the maintained lists (bench/email-report.ts runs them there).
 */
export type GoldenRow = readonly [address: string, disposable: boolean, free: boolean, why: string];

const FREE = (domains: string, region: string): GoldenRow[] =>
  domains.split(/\s+/).map((d) => [`someone@${d}`, false, true, `free mailbox provider (${region})`]);
const DISPOSABLE = (domains: string, why: string): GoldenRow[] =>
  domains.split(/\s+/).map((d) => [`someone@${d}`, true, false, why]);
const NEITHER = (domains: string, why: string): GoldenRow[] =>
  domains.split(/\s+/).map((d) => [`someone@${d}`, false, false, why]);

export const GOLDEN_TABLE: readonly GoldenRow[] = [
  ...FREE(
    "gmail.com googlemail.com yahoo.com ymail.com rocketmail.com outlook.com hotmail.com live.com msn.com aol.com icloud.com me.com mac.com mail.com gmx.com zoho.com yandex.com protonmail.com proton.me pm.me",
    "North America and global",
  ),
  ...FREE("gmx.de gmx.net web.de freenet.de yahoo.de hotmail.de gmx.at gmx.ch bluewin.ch", "German-speaking Europe"),
  ...FREE(
    "hotmail.se live.se hotmail.no hotmail.fi live.at hotmail.cz live.ru hotmail.co.za gmx.co.uk gmx.es gmx.it",
    "Microsoft's and GMX's country domains: curated supplement",
  ),
  ...FREE("laposte.net orange.fr free.fr sfr.fr wanadoo.fr hotmail.fr yahoo.fr", "France"),
  ...FREE("libero.it virgilio.it tiscali.it hotmail.it", "Italy"),
  ...FREE("yahoo.co.uk hotmail.co.uk btinternet.com", "United Kingdom"),
  ...FREE(
    "seznam.cz centrum.cz wp.pl o2.pl onet.pl interia.pl op.pl inbox.lv abv.bg mail.bg freemail.hu citromail.hu azet.sk",
    "Central and Eastern Europe",
  ),
  ...FREE("tutanota.com tutanota.de tutamail.com tuta.io tuta.com keemail.me", "Tuta, Germany: curated supplement"),
  ...FREE("mail.ru bk.ru inbox.ru list.ru yandex.ru ya.ru rambler.ru ukr.net i.ua meta.ua", "Russia and Ukraine"),
  ...FREE(
    "qq.com foxmail.com 163.com 126.com yeah.net sina.com sohu.com aliyun.com 139.com 189.cn 21cn.com tom.com",
    "China",
  ),
  ...FREE("naver.com daum.net hanmail.net kakao.com", "South Korea"),
  ...FREE("yahoo.co.jp", "Japan"),
  ...FREE("rediffmail.com yahoo.co.in", "India"),
  ...FREE(
    "uol.com.br bol.com.br terra.com.br yahoo.com.br hotmail.com.br ig.com.br yahoo.com.mx hotmail.es",
    "Latin America and Spain",
  ),
  ...FREE(
    "consultant.com myself.com dr.com techie.com uymail.com writeme.com alumni.com contractor.net optician.com photographer.net priest.com salesperson.net",
    "mail.com's free address domains (Thunderbird's ISPDB lists them), wrongly on a disposable list",
  ),

  ...DISPOSABLE(
    "mailinator.com guerrillamail.com guerrillamail.net sharklasers.com grr.la 10minutemail.com temp-mail.org yopmail.com yopmail.fr maildrop.cc trashmail.com trashmail.de getnada.com dispostable.com mailnesia.com mintemail.com fakeinbox.com mytemp.email emailondeck.com mohmal.com dropmail.me mailcatch.com jetable.org spam4.me discard.email burnermail.io emailfake.com harakirimail.com tempinbox.com incognitomail.org",
    "a well-known throwaway-mail service",
  ),
  ...DISPOSABLE("abc.mailinator.com x.y.yopmail.com inbox.trashmail.com", "a subdomain of a throwaway service"),
  ...DISPOSABLE(
    "gmai.com hotmial.com",
    "a typo-squat of a big provider, listed so that mistyped addresses do not count as real",
  ),
  ...DISPOSABLE("müll.email", "German for 'trash': a throwaway service with an IDN domain"),
  ...DISPOSABLE("gmaıl.net instágram.com", "a homoglyph of a big provider's or site's name (dotless ı, á)"),

  ...FREE(
    "duck.com mozmail.com privaterelay.appleid.com simplelogin.com anonaddy.me addy.io passmail.net",
    "a privacy relay to the person's own inbox: a personal address at no charge, not disposable",
  ),
  [
    "someone@spamgourmet.com",
    false,
    true,
    "a long-standing forwarding service listed by the free list; on the upstream allowlist",
  ],
  ...NEITHER("cdc.com", "a corporate domain wrongly on old disposable lists"),
  ["someone@sudomail.com", false, true, "a privacy mail provider with real mailboxes, wrongly on old disposable lists"],
  ["someone@iwi.net", false, true, "an ISP's consumer mailbox domain, wrongly on old disposable lists"],

  ...NEITHER(
    "microsoft.com apple.com ibm.com amazon.com google.com stripe.com siemens.de toyota.co.jp bbc.co.uk nytimes.com github.com cabinetoffice.gov.uk",
    "a company or government domain",
  ),
  ...NEITHER(
    "mit.edu stanford.edu harvard.edu ox.ac.uk cam.ac.uk ethz.ch u-tokyo.ac.jp tsinghua.edu.cn uw.edu.pl unimelb.edu.au usp.br",
    "a university: edu.pl and other academic suffixes never flag the universities under them",
  ),
  ...NEITHER(
    "nus.edu.sg live.mdx.ac.uk mail.bcu.ac.uk",
    "a university's mail domain that the free list carries: members' addresses, not a free provider",
  ),

  ...NEITHER(
    "xn--mller-kva.de xn--e1afmkfd.xn--p1ai xn--fiqs8s.xn--fiqs8s",
    "an ordinary IDN domain (müller.de, пример.рф, 中国.中国)",
  ),
  ...DISPOSABLE(
    "example.com example.org mail.example.net example.co.uk foo.test something.invalid",
    "a reserved name (RFC 2606/6761): a placeholder address that can never receive mail",
  ),
  ["someone@co.uk", false, false, "a public suffix, never a provider"],
  ["Some.One+tag@Gmail.COM", false, true, "case and sub-addressing do not change the provider"],
  ['"quoted..local"@yahoo.com', false, true, "a quoted local part, same provider"],
  [
    "someone@xn--80ak6aa92e.com",
    false,
    false,
    "a punycode domain as given (аррӏе.com, a homoglyph of apple.com) that no list carries",
  ],
];
