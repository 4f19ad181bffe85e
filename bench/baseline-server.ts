/** The baseline: a bare Bun.serve returning a fixed JSON body of the given size. */
const size = Number(process.argv[2] ?? 600);
const port = Number(process.argv[3] ?? 0);
const filler = "x".repeat(Math.max(0, size - 20));
const body = `${JSON.stringify({ ok: true, pad: filler }).slice(0, size - 2)}"}`;
const server = Bun.serve({
  hostname: "127.0.0.1",
  port,
  fetch: () => new Response(body, { headers: { "content-type": "application/json" } }),
});
console.log(`baseline listening on http://127.0.0.1:${server.port} (${body.length} bytes)`);
