// A fresh emulator for one lab: the cosmolite binary started on a free port with the lab's flags,
// in memory, over plain HTTP (the SDK needs no certificate then), stopped when the lab ends.
// The binary is $COSMOLITE_BIN, else ../build/cosmolite of this source tree, else `cosmolite` on
// the PATH. With $COSMOLITE_IMAGE set (e.g. cosmolite:latest) the lab runs that image instead,
// through $CONTAINER_RUNTIME (docker, or podman): nothing to build on a student's laptop.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CosmosClient } from "@azure/cosmos";

const here = path.dirname(fileURLToPath(import.meta.url));

// The well-known emulator key: every Cosmos DB emulator accepts it, and so does cosmolite by default.
export const EMULATOR_KEY =
  "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

export function emulatorBinary() {
  if (process.env.COSMOLITE_BIN) return process.env.COSMOLITE_BIN;
  const built = path.resolve(here, "..", "..", "build", "cosmolite");
  if (fs.existsSync(built)) return built;
  const found = spawnSync("sh", ["-c", "command -v cosmolite"], { encoding: "utf8" }).stdout.trim();
  if (found) return found;
  throw new Error("no cosmolite binary: build it (make build), put it on the PATH, or set COSMOLITE_BIN");
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// GET or POST on the emulator's admin API (/_cosmolite/...), authorized with the account key.
function adminRequest(endpoint, method, urlPath) {
  return new Promise((resolve, reject) => {
    const request = http.request(new URL(urlPath, endpoint), {
      method, headers: { "x-cosmolite-key": EMULATOR_KEY }, agent: false,
    }, (response) => {
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        if (response.statusCode >= 300) reject(new Error(`${method} ${urlPath}: ${response.statusCode} ${text}`));
        else resolve(text ? JSON.parse(text) : {});
      });
    });
    request.on("error", reject);
    request.end();
  });
}

export class Emulator {
  // flags: extra command-line flags of the lab (e.g. ["--rate-limit"]).
  constructor(flags = []) {
    this.flags = flags;
    this.output = "";
  }

  async start() {
    const port = await freePort();
    this.endpoint = `http://127.0.0.1:${port}/`;
    const serverFlags = ["--no-tls", "--in-memory", "--log-level", "warn", ...this.flags];
    const image = process.env.COSMOLITE_IMAGE;
    if (image) {
      // The image's entry point is the emulator; it listens on 8081 inside the container.
      this.runtime = process.env.CONTAINER_RUNTIME ?? "docker";
      this.containerName = `cosmolite-lab-${port}`;
      // $CONTAINER_RUN_ARGS: more `run` flags where the runtime needs them (e.g. --ulimit for rootless podman).
      const extra = (process.env.CONTAINER_RUN_ARGS ?? "").split(" ").filter(Boolean);
      const args = ["run", "--rm", "--name", this.containerName, "-p", `127.0.0.1:${port}:8081`, ...extra, image, ...serverFlags];
      this.child = spawn(this.runtime, args, { stdio: ["ignore", "pipe", "pipe"] });
    } else {
      this.child = spawn(emulatorBinary(), ["--port", String(port), ...serverFlags], { stdio: ["ignore", "pipe", "pipe"] });
    }
    this.exited = new Promise((resolve) => this.child.on("exit", resolve));
    this.child.stdout.on("data", (d) => (this.output += d));
    this.child.stderr.on("data", (d) => (this.output += d));
    for (const deadline = Date.now() + (image ? 60_000 : 10_000); Date.now() < deadline; await sleep(30)) {
      if (this.child.exitCode !== null) throw new Error(`cosmolite exited at start:\n${this.output}`);
      try {
        await new Promise((resolve, reject) =>
          http.get(new URL("ready", this.endpoint), { agent: false }, (r) => (r.resume(), r.statusCode === 200 ? resolve() : reject()))
            .on("error", reject));
        return this;
      } catch {
        // not listening yet
      }
    }
    await this.stop();
    throw new Error(`cosmolite did not become ready:\n${this.output}`);
  }

  // A client as a student writes it; pass { retry: false } to see 429s instead of the SDK's
  // silent retries.
  client({ retry = true, consistencyLevel } = {}) {
    const connectionPolicy = retry ? undefined : {
      retryOptions: { maxRetryAttemptCount: 0, fixedRetryIntervalInMilliseconds: 0, maxWaitTimeInSeconds: 0 },
    };
    return new CosmosClient({ endpoint: this.endpoint, key: EMULATOR_KEY, connectionPolicy, consistencyLevel });
  }

  // The admin API: /_cosmolite/queries, /_cosmolite/partitions, /_cosmolite/cost-report...
  admin(urlPath, method = "GET") {
    return adminRequest(this.endpoint, method, urlPath);
  }

  // The newest query of the admin API's log whose text is `text`: RU of all its requests and the
  // physical partitions it reached.
  async lastQuery(text) {
    const { queries } = await this.admin("/_cosmolite/queries");
    const found = queries.find((q) => q.query === text);
    if (!found) throw new Error(`the emulator logged no query "${text}"`);
    return found;
  }

  async stop() {
    if (!this.child || this.child.exitCode !== null) return;
    if (this.containerName) spawnSync(this.runtime, ["stop", "-t", "5", this.containerName], { stdio: "ignore" });
    else this.child.kill("SIGTERM");
    await this.exited;
  }
}
