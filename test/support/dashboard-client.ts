/** A minimal browser stand-in over the test server: keeps cookies, reads hidden CSRF fields. */
export class DashboardClient {
  readonly cookies = new Map<string, string>();

  constructor(private readonly handle: (request: Request) => Promise<Response>) {}

  async get(path: string): Promise<{ res: Response; body: string }> {
    return this.send(new Request(`http://riskcheck.test${path}`, { headers: this.cookieHeader() }));
  }

  async post(
    path: string,
    form: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<{ res: Response; body: string }> {
    return this.send(
      new Request(`http://riskcheck.test${path}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...this.cookieHeader(), ...headers },
        body: new URLSearchParams(form).toString(),
      }),
    );
  }

  async signIn(password: string): Promise<Response> {
    const { body } = await this.get("/dashboard");
    return (await this.post("/dashboard/sign-in", { csrf: csrfOf(body), password })).res;
  }

  private cookieHeader(): Record<string, string> {
    return this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ") } : {};
  }

  private async send(request: Request) {
    const res = await this.handle(request);
    for (const line of res.headers.getSetCookie()) {
      const cookie = Bun.Cookie.parse(line);
      if (cookie.value === "" || cookie.maxAge === 0) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    return { res, body: await res.text() };
  }
}

export function csrfOf(body: string): string {
  const match = body.match(/name="csrf" value="([^"]+)"/);
  if (!match) throw new Error(`no CSRF field in:\n${body.slice(0, 500)}`);
  return match[1];
}
