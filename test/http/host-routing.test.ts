import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { createTestApp } from "../support/test-app.ts";
import { scaled } from "../support/slowness.ts";

/**
 * Elysia 1.4 finds the path at `url.indexOf("/", 11)`, which lands inside the path when the
 * host is 1–3 characters long (`http://x/v1/metrics` routed as `/metrics`) and past it for
 * a path-only URL. patches/elysia+1.4.30.patch (applied by the postinstall's patch-package)
 * starts the search after the scheme instead: these requests go over a real socket, as Bun
 * builds `request.url` from the request line and Host, and fail if the patch is lost.
 */
let app: Awaited<ReturnType<typeof createTestApp>>;
let served: ReturnType<typeof app.listenOnLoopback>;
beforeAll(async () => {
  app = await createTestApp();
  served = app.listenOnLoopback();
});
afterAll(() => served.stop());

/** Sends the request as written and reads until the server closes: status, content type, body. */
function send(head: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(served.server.port!, "127.0.0.1", () =>
      socket.write(`${head}\r\nConnection: close\r\n\r\n`),
    );
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${scaled(5_000)} ms to ${JSON.stringify(head)}`));
    }, scaled(5_000));
    socket.on("data", (d: Buffer) => chunks.push(d));
    socket.on("error", reject);
    socket.on("close", () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString();
      const [top, ...rest] = text.split("\r\n\r\n");
      resolve({
        status: Number(top.split(" ")[1]),
        type: /content-type: ([^\r]*)/i.exec(top)?.[1] ?? "",
        body: rest.join("\r\n\r\n"),
      });
    });
  });
}

describe("routing by the request's path, whatever the Host header says", () => {
  for (const host of ["Host: x", "Host: api", "Host: api:80", "Host: a-long-enough-name.example"]) {
    test(`${host}: /healthz is served, /v1/metrics and /v1/dashboard are the JSON 404`, async () => {
      expect((await send(`GET /healthz HTTP/1.1\r\n${host}`)).status).toBe(200);
      for (const path of ["/v1/metrics", "/v1/dashboard"]) {
        const res = await send(`GET ${path} HTTP/1.1\r\n${host}`);
        expect(res.status).toBe(404);
        expect(JSON.parse(res.body)).toEqual({ error: "not_found", message: expect.any(String) });
      }
      const check = await send(`GET /v1/check?email=a@gmail.com HTTP/1.1\r\n${host}`);
      expect(check.status).toBe(401);
    });
  }

  test("an absolute-form request line is routed by its path, not its host", async () => {
    expect((await send("GET http://x/healthz HTTP/1.1\r\nHost: x")).status).toBe(200);
    expect((await send("GET http://api/v1/metrics HTTP/1.1\r\nHost: api")).status).toBe(404);
    expect((await send("GET http://a/v1/dashboard HTTP/1.1\r\nHost: elsewhere.example")).status).toBe(404);
  });

  test("app.handle takes the same road: a one-letter host is no shorter path there either", async () => {
    for (const origin of ["http://x", "http://api", "https://x", "http://a-long-enough-name.example"]) {
      expect((await app.handle(new Request(`${origin}/healthz`))).status).toBe(200);
      expect((await app.handle(new Request(`${origin}/v1/metrics`))).status).toBe(404);
      expect((await app.handle(new Request(`${origin}/v1/dashboard?x=1`))).status).toBe(404);
    }
  });

  test("no Host at all (HTTP/1.0), or an empty one: still the request's path", async () => {
    expect((await send("GET /healthz HTTP/1.0")).status).toBe(200);
    expect((await send("GET /healthz HTTP/1.1\r\nHost: ")).status).toBe(200);
    expect((await send("GET /v1/metrics HTTP/1.0")).status).toBe(404);
  });
});

describe("answers the app shapes over a socket, where Bun used to answer first", () => {
  test("a declared body over 16 MiB is the documented 413 JSON, not Bun's bare one", async () => {
    const { secret } = await app.newKey("both", { permissions: ["check", "report"] });
    for (const path of ["/v1/reports", "/v1/check/batch"]) {
      const res = await send(
        `POST ${path} HTTP/1.1\r\nHost: api\r\nAuthorization: Bearer ${secret}\r\nContent-Type: application/json\r\nContent-Length: ${20 * 1024 * 1024}`,
      );
      expect(res.status).toBe(413);
      expect(res.type).toBe("application/json");
      expect(JSON.parse(res.body)).toEqual({ error: "body_too_large", message: expect.any(String) });
    }
    const nowhere = await send(`POST /v1/nothing-here HTTP/1.1\r\nHost: api\r\nContent-Length: ${20 * 1024 * 1024}`);
    expect(nowhere.status).toBe(404);
    expect(JSON.parse(nowhere.body)).toMatchObject({ error: "not_found" });
  });
});
