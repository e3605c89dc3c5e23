// What each test receives: the endpoint under test, SDK clients, raw requests, unique ids and
// cleanup registration.
import https from "node:https";
import crypto from "node:crypto";
import { CosmosClient } from "@azure/cosmos";
import { rawRequest } from "./raw.mjs";
import { ServerProcess, makeTempDir, removeDir } from "./server.mjs";

const runTag = crypto.randomBytes(3).toString("hex");
let counter = 0;

// Unique per run and per call; short enough to leave room in the 255-character id limit.
export function uniqueId(prefix = "t") {
  counter += 1;
  return `${prefix}-${runTag}-${counter}`;
}

export function makeClient(endpoint, key, extra = {}) {
  const options = { endpoint, key, ...extra };
  // A self-signed certificate in HTTPS mode; plain HTTP must keep the SDK's default agent.
  if (endpoint.startsWith("https:") && !options.agent) options.agent = new https.Agent({ rejectUnauthorized: false });
  return new CosmosClient(options);
}

/**
 * target: {mode, endpoint, key, tls, managed (bool), serverOptions (when managed)}.
 * The context is created per test; cleanups run in reverse order after the test.
 */
export class TestContext {
  constructor(target, sharedClient) {
    this.target = target;
    this.mode = target.mode;
    this.endpoint = target.endpoint;
    this.key = target.key;
    this.tls = target.tls;
    this.managed = target.managed;
    this.client = sharedClient;
    this.cleanups = [];
  }

  uid(prefix) {
    return uniqueId(prefix);
  }

  newClient(extra = {}, endpoint = this.endpoint, key = this.key) {
    return makeClient(endpoint, extra.key ?? key, extra);
  }

  raw(options) {
    return rawRequest({ endpoint: this.endpoint, key: this.key }, options);
  }

  defer(fn) {
    this.cleanups.push(fn);
  }

  // Create a database with a unique id, deleted after the test (a 404 on delete is fine).
  async database(prefix = "db", client = this.client) {
    const id = this.uid(prefix);
    const { database, statusCode } = await client.databases.create({ id });
    if (statusCode !== 201) throw new Error(`setup: creating database ${id} answered ${statusCode}`);
    this.defer(async () => {
      try {
        await client.database(id).delete();
      } catch (error) {
        if (error.code !== 404) throw error;
      }
    });
    return database;
  }

  // A cosmolite of the test's own, started with extra flags in the suite's mode (in memory, or on a
  // data directory of its own with `onDisk`), with a client of it; all gone after the test. Tests
  // that use it require "managed".
  async ownServer(extraArgs, { onDisk = false } = {}) {
    const dataDir = onDisk ? makeTempDir() : null;
    if (dataDir) this.defer(() => removeDir(dataDir));
    const server = new ServerProcess({ tls: this.tls, extraArgs, dataDir });
    this.defer(() => server.stop());
    await server.start();
    const client = makeClient(server.endpoint, server.key);
    this.defer(() => client.dispose());
    return { server, client };
  }

  // A database plus a container partitioned on /pk (or the given definition).
  async container(containerDefinition = {}) {
    const database = await this.database();
    const definition = { id: this.uid("c"), partitionKey: { paths: ["/pk"] }, ...containerDefinition };
    const { container } = await database.containers.create(definition);
    return { database, container };
  }

  async runCleanups() {
    const errors = [];
    while (this.cleanups.length) {
      const fn = this.cleanups.pop();
      try {
        await fn();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length) throw new Error(`cleanup failed: ${errors.map((e) => e.message).join("; ")}`);
  }
}
