// The cost report of a running emulator, as a table:
//   node cost-report.mjs [--endpoint http://127.0.0.1:8081/] [--hour-seconds 3600] [--from S] [--to S]
// --hour-seconds compresses time: with 1, every second of the run is billed as an hour. The account
// key is the emulator's well-known key unless COSMOS_KEY is set.
import http from "node:http";
import https from "node:https";
import { EMULATOR_KEY } from "./lib/emulator.mjs";
import { costTable, pricesLine } from "./lib/cost.mjs";
import { Report } from "./lib/report.mjs";

const args = process.argv.slice(2);
function option(name, fallback) {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
}
const endpoint = option("--endpoint", process.env.COSMOS_ENDPOINT ?? "https://127.0.0.1:8081/");
const query = new URLSearchParams({ hourSeconds: option("--hour-seconds", "3600") });
if (option("--from")) query.set("from", option("--from"));
if (option("--to")) query.set("to", option("--to"));
const url = new URL(`/_cosmolite/cost-report?${query}`, endpoint);
const lib = url.protocol === "https:" ? https : http;
// The emulator's own certificate is self-signed: this reads a local admin endpoint only.
lib.get(url, { headers: { "x-cosmolite-key": process.env.COSMOS_KEY ?? EMULATOR_KEY }, rejectUnauthorized: false }, (response) => {
  let text = "";
  response.on("data", (chunk) => (text += chunk));
  response.on("end", () => {
    if (response.statusCode !== 200) {
      console.error(`${url}: ${response.statusCode} ${text}`);
      process.exit(1);
    }
    const report = JSON.parse(text);
    const out = new Report();
    out.note(pricesLine(report));
    const { columns, rows } = costTable(report);
    if (rows.length === 0) out.note("No container consumed any RU in the window.");
    else out.table(columns, rows);
  });
}).on("error", (error) => {
  console.error(`${url}: ${error.message}`);
  process.exit(1);
});
