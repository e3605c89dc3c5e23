// Starts the peer emulator @vercel/cosmosdb-server (installed by run_bench.py into a scratch
// folder) on loopback with HTTP keep-alive, for the benchmark.
// Usage: node start_peer.js --module-dir DIR --port N [--host 127.0.0.1] [--no-tls]
// DIR is the folder whose node_modules holds @vercel/cosmosdb-server. Prints "ready" once listening.
"use strict";
const { createRequire } = require("node:module");
const path = require("node:path");

const args = process.argv.slice(2);
function flag(name, fallback) {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
}
const moduleDir = path.resolve(flag("--module-dir", "."));
const port = Number(flag("--port", "3000"));
const host = flag("--host", "127.0.0.1");
const tls = !args.includes("--no-tls");

const load = createRequire(path.join(moduleDir, "package.json"));
const { createHttpServer, createHttpsServer } = load("@vercel/cosmosdb-server");
const server = (tls ? createHttpsServer : createHttpServer)({ keepAlive: true });
// Node closes idle keep-alive connections after 5 s by default; cosmolite waits 120 s.
server.keepAliveTimeout = 120_000;
server.headersTimeout = 125_000;
server.listen(port, host, () => {
  console.log(`ready ${tls ? "https" : "http"}://${host}:${server.address().port}`);
});
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => server.close(() => process.exit(0)) && setTimeout(() => process.exit(0), 2000).unref());
}
