import type { Level } from "../ip/verdict/reputation-schema.ts";

/** The reputation levels from the mildest up: a level's rank is its place here, so `at_least` compares numbers. */
export const LEVELS_BY_RANK: readonly Level[] = Object.freeze(["ok", "informative", "suspicious", "warning", "bad"]);
