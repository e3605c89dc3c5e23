// The conformance runner: starts cosmolite (HTTPS, then plain HTTP), runs every test file under
// tests/ against it through the official SDK and raw signed requests, and prints one line per test.
//
// Environment:
//   COSMOLITE_BIN      server binary (default ../build/cosmolite relative to this folder)
//   COSMOS_ENDPOINT    test an already-running endpoint instead (no server is started)
//   COSMOS_KEY         its master key (default: the well-known emulator key)
//   CONFORMANCE_FILTER only run tests whose full name contains this text
//   CONFORMANCE_MODES  comma-separated subset of "https,http" (managed server only)
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DEFAULT_KEY, ServerProcess, makeTempDir, removeDir, serverBinary } from "./lib/server.mjs";
import { TestContext, makeClient } from "./lib/context.mjs";
import { closeAgents } from "./lib/raw.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const TEST_TIMEOUT_MS = 30_000;
const filter = process.env.CONFORMANCE_FILTER || "";

let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];

function report(name, error) {
  if (error) {
    failed += 1;
    const reason = (error.message || String(error)).replace(/\s+/g, " ").trim();
    failures.push(name);
    console.log(`not ok - ${name}: ${reason}`);
  } else {
    passed += 1;
    console.log(`ok - ${name}`);
  }
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function loadSuites() {
  const dir = path.join(here, "tests");
  const files = fs.readdirSync(dir).filter((f) => f.endsWith(".mjs")).sort();
  // Restart tests stop and start processes: run them last.
  files.sort((a, b) => (a === "persistence.mjs") - (b === "persistence.mjs"));
  const suites = [];
  for (const file of files) {
    const module = await import(pathToFileURL(path.join(dir, file)).href);
    suites.push({ name: path.basename(file, ".mjs"), tests: module.default });
  }
  return suites;
}

// Why a test cannot run against this target, or null.
function skipReason(test, target) {
  const requires = test.requires ?? [];
  if (requires.includes("managed") && !target.managed) {
    return "needs a server started by the suite (restart test); COSMOS_ENDPOINT points at an external endpoint";
  }
  if (requires.includes("emulator") && !target.managed) return "emulator-specific behaviour";
  if (requires.includes("tls") && !target.tls) return "HTTPS only";
  if (requires.includes("plain") && target.tls) return "plain HTTP only";
  return null;
}

async function runSuites(target, suites) {
  const client = makeClient(target.endpoint, target.key);
  for (const suite of suites) {
    for (const test of suite.tests) {
      const name = `${target.mode} - ${suite.name}: ${test.name}`;
      if (filter && !name.includes(filter)) continue;
      const reason = skipReason(test, target);
      if (reason) {
        skipped += 1;
        console.log(`ok - ${name} # SKIP ${reason}`);
        continue;
      }
      const ctx = new TestContext(target, client);
      let error = null;
      try {
        await withTimeout(test.run(ctx), test.timeoutMs ?? TEST_TIMEOUT_MS, "test");
      } catch (e) {
        error = e;
      }
      try {
        await withTimeout(ctx.runCleanups(), 15_000, "cleanup");
      } catch (e) {
        error ??= e;
      }
      report(name, error);
    }
  }
  client.dispose?.();
}

async function main() {
  const started = Date.now();
  const suites = await loadSuites();
  if (process.env.COSMOS_ENDPOINT) {
    const endpoint = process.env.COSMOS_ENDPOINT.replace(/\/?$/, "/");
    const target = {
      mode: "external",
      endpoint,
      key: process.env.COSMOS_KEY || DEFAULT_KEY,
      tls: endpoint.startsWith("https:"),
      managed: false,
    };
    console.log(`# testing the external endpoint ${endpoint}; restart tests are skipped`);
    await runSuites(target, suites);
  } else {
    const wanted = (process.env.CONFORMANCE_MODES || "https,http").split(",").map((s) => s.trim());
    console.log(`# server binary ${serverBinary()}`);
    for (const mode of ["https", "http"].filter((m) => wanted.includes(m))) {
      const tls = mode === "https";
      // HTTPS mode runs on a temp data directory, HTTP mode in memory: both stores get exercised.
      const dataDir = tls ? makeTempDir() : null;
      // HTTPS mode also runs with four physical partitions per container, so that every SDK test
      // goes through cross-partition routing; HTTP mode keeps one.
      const extraArgs = tls ? ["--min-physical-partitions", "4"] : [];
      const server = new ServerProcess({ tls, dataDir, inMemory: !tls, extraArgs });
      let up = false;
      try {
        await server.start();
        up = true;
        report(`${mode} - server: starts and answers GET /ready`, null);
      } catch (error) {
        report(`${mode} - server: starts and answers GET /ready`, error);
      }
      if (up) {
        const target = { mode, endpoint: server.endpoint, key: server.key, tls, managed: true };
        await runSuites(target, suites);
        const exit = await server.stop();
        report(
          `${mode} - server: SIGTERM exits with code 0`,
          exit && exit.code === 0 ? null : new Error(`exit ${JSON.stringify(exit)}; output:\n${server.output.slice(-2000)}`),
        );
      }
      if (dataDir) removeDir(dataDir);
    }
  }
  closeAgents();
  console.log(`# ${skipped} skipped, ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed > 0 ? 1 : 0;
}

main().catch((error) => {
  console.error(error);
  console.log(`${passed} passed, ${failed + 1} failed`);
  process.exitCode = 1;
});
