// The workshop's runner: each lab on a fresh emulator it starts itself.
//   node run.mjs                      lists the labs
//   node run.mjs <lab> [--quick]      runs one lab (its number or name: 1, iot-partition-key)
//   node run.mjs --all [--quick]      runs every lab (make test runs this with --quick)
// --quick uses small data: the same lessons and checks, in seconds (the labs' test).
// Exit code 1 when a lab's checks fail or it throws.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Emulator } from "./lib/emulator.mjs";
import { Report } from "./lib/report.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const labsDir = path.join(here, "labs");

async function loadLabs() {
  const folders = fs.readdirSync(labsDir)
    .filter((f) => /^\d+-/.test(f) && fs.existsSync(path.join(labsDir, f, "lab.mjs")))
    .sort((x, y) => parseInt(x) - parseInt(y));
  const labs = [];
  for (const folder of folders) {
    const lab = (await import(pathToFileURL(path.join(labsDir, folder, "lab.mjs")))).default;
    labs.push({ ...lab, folder, number: parseInt(folder), name: folder.replace(/^\d+-/, "") });
  }
  return labs;
}

async function runLab(lab, quick) {
  const report = new Report();
  report.heading(`Lab ${lab.number}: ${lab.title}${quick ? " (quick)" : ""}`);
  const emulator = new Emulator(lab.flags ?? []);
  const started = Date.now();
  try {
    await emulator.start();
    await lab.run({ emulator, report, quick });
  } catch (error) {
    report.check("the lab ran to its end", false, error.stack ?? String(error));
  } finally {
    await emulator.stop();
  }
  const ok = report.summary();
  report.note(`(${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return ok;
}

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const wanted = args.filter((a) => !a.startsWith("--"));
const labs = await loadLabs();
if (!args.includes("--all") && wanted.length === 0) {
  console.log("Labs (node run.mjs <number or name> [--quick], or make lab NAME=<name>):");
  for (const lab of labs) console.log(`  ${lab.number}. ${lab.name}: ${lab.title}`);
  process.exit(0);
}
const chosen = args.includes("--all") ? labs
  : wanted.map((w) => labs.find((lab) => String(lab.number) === w || lab.name === w || lab.folder === w) ??
      (console.error(`no lab "${w}"; node run.mjs lists them`), process.exit(2)));
let failed = 0;
for (const lab of chosen) if (!(await runLab(lab, quick))) failed++;
if (chosen.length > 1) console.log(`\n${chosen.length - failed} of ${chosen.length} labs passed their checks.`);
process.exit(failed ? 1 : 0);
