// Starting and stopping a cosmolite process for the suite: free port, readiness poll, SIGTERM.
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

export const DEFAULT_KEY =
  "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

export function serverBinary() {
  return process.env.COSMOLITE_BIN || path.resolve(here, "..", "..", "build", "cosmolite");
}

// A port nobody listens on right now: bind port 0, read the port, release it.
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

export function makeTempDir(prefix = "cosmolite-conformance-") {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function removeDir(dir) {
  fs.rmSync(dir, { recursive: true, force: true });
}

function get(url, timeoutMs) {
  return new Promise((resolve, reject) => {
    const lib = url.startsWith("https:") ? https : http;
    const req = lib.get(url, { rejectUnauthorized: false, timeout: timeoutMs, agent: false }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
  });
}

export { get as httpGet };

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A running cosmolite child process. Options: tls (default true), dataDir or inMemory, key, port.
export class ServerProcess {
  constructor({ tls = true, dataDir = null, inMemory = false, key = DEFAULT_KEY, port = null, extraArgs = [] } = {}) {
    this.tls = tls;
    this.dataDir = dataDir;
    this.inMemory = inMemory || !dataDir;
    this.key = key;
    this.port = port;
    this.extraArgs = extraArgs;
    this.output = "";
    this.child = null;
    this.exit = null; // {code, signal} once exited
  }

  get endpoint() {
    return `${this.tls ? "https" : "http"}://127.0.0.1:${this.port}/`;
  }

  async start() {
    for (let attempt = 0; attempt < 3; attempt++) {
      if (!this.port || attempt > 0) this.port = await freePort();
      try {
        await this.#spawnAndWait();
        return this;
      } catch (error) {
        // Another process may have taken the port between probe and bind: retry on a new one.
        if (this.exit && attempt < 2 && /address|bind|in use/i.test(this.output)) continue;
        throw error;
      }
    }
  }

  async #spawnAndWait() {
    const args = ["--port", String(this.port), "--host", "127.0.0.1", "--key", this.key, "--threads", "2"];
    if (this.inMemory) args.push("--in-memory");
    else args.push("--data-dir", this.dataDir);
    if (!this.tls) args.push("--no-tls");
    args.push(...this.extraArgs);
    this.output = "";
    this.exit = null;
    const bin = serverBinary();
    if (!fs.existsSync(bin)) throw new Error(`server binary not found at ${bin} (set COSMOLITE_BIN)`);
    const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
    this.child = child;
    this.exited = new Promise((resolve) => {
      child.on("exit", (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
    child.stdout.on("data", (d) => (this.output += d));
    child.stderr.on("data", (d) => (this.output += d));
    child.on("error", (e) => (this.output += `spawn error: ${e.message}\n`));

    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (this.exit) {
        throw new Error(`cosmolite exited early (code ${this.exit.code}, signal ${this.exit.signal}):\n${this.output}`);
      }
      try {
        const res = await get(`${this.endpoint}ready`, 1000);
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      await sleep(40);
    }
    this.child.kill("SIGKILL");
    throw new Error(`cosmolite did not answer GET /ready within 10 s:\n${this.output}`);
  }

  // SIGTERM and wait; returns {code, signal}. Kills with SIGKILL after timeoutMs.
  async stop(timeoutMs = 10_000) {
    if (!this.child) return null;
    if (this.exit) return this.exit;
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), timeoutMs);
    const exit = await this.exited;
    clearTimeout(timer);
    return exit;
  }
}
