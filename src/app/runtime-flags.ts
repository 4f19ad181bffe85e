/**
 * Bun flags `serve` runs with: `bun run start` passes them, `build.ts` compiles them into
 * the binary. Bun answers a request whose request line and headers exceed its limit
 * (16 KiB by default) with a bare 431 before any handler runs; at 64 KiB an over-long
 * URL reaches the routes and gets their JSON error (`invalid_email`, `invalid_ip`, 404).
 */
export const MAX_HTTP_HEADER_BYTES = 64 * 1024;
export const SERVE_RUNTIME_FLAGS = [`--max-http-header-size=${MAX_HTTP_HEADER_BYTES}`];
