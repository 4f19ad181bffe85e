/** The bounds of a request that carries many items: `POST /v1/check/batch` and `POST /v1/reports`. */
export const MAX_BATCH_BYTES = 1024 * 1024;
export const MAX_BATCH_ITEMS = 1_000;
