// Emulator endpoints: readiness, the certificate download, HTTPS and plain HTTP on one port.
import crypto from "node:crypto";
import tls from "node:tls";
import * as a from "../lib/assert.mjs";
import { makeClient } from "../lib/context.mjs";
import { ServerProcess, httpGet } from "../lib/server.mjs";
import { rawRequest } from "../lib/raw.mjs";

// The certificate the TLS handshake presents, and whether the handshake verified it against `ca`.
function handshake(endpoint, { ca, servername } = {}) {
  const url = new URL(endpoint);
  return new Promise((resolve, reject) => {
    const options = { host: url.hostname, port: Number(url.port), servername: servername ?? "localhost", rejectUnauthorized: false };
    if (ca) options.ca = ca;
    const socket = tls.connect(options, () => {
      const certificate = socket.getPeerX509Certificate();
      const result = { certificate, authorized: socket.authorized, error: socket.authorizationError };
      socket.end();
      resolve(result);
    });
    socket.on("error", reject);
  });
}

export default [
  {
    name: "GET /ready and /alive answer 200 without authorization",
    requires: ["emulator"],
    async run(ctx) {
      for (const path of ["ready", "alive"]) {
        const response = await httpGet(`${ctx.endpoint}${path}`, 2000);
        a.status(response, 200, `GET /${path}`);
      }
    },
  },
  {
    name: "GET /_explorer/emulator.pem returns the authority that issued the certificate the TLS handshake presents",
    requires: ["emulator", "tls"],
    async run(ctx) {
      const response = await httpGet(`${ctx.endpoint}_explorer/emulator.pem`, 2000);
      a.status(response, 200, "GET emulator.pem");
      a.match(response.body, /^-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE-----/, "PEM body");
      const authority = new crypto.X509Certificate(response.body);
      a.ok(authority.ca, "the downloaded certificate is a certificate authority");
      const trusted = await handshake(ctx.endpoint, { ca: response.body });
      a.ok(trusted.authorized, `the handshake verifies against emulator.pem (${trusted.error})`);
      a.ok(trusted.certificate.checkIssued(authority) && trusted.certificate.verify(authority.publicKey), "issued by the authority");
      a.ok(trusted.certificate.checkHost("localhost"), "the server certificate names localhost");
      a.ok(trusted.certificate.checkIP("127.0.0.1"), "the server certificate names 127.0.0.1");
      const untrusted = await handshake(ctx.endpoint);
      a.ok(!untrusted.authorized, "without emulator.pem the handshake is not trusted");
    },
  },
  {
    name: "plain HTTP on the HTTPS port works (SDK over http://)",
    requires: ["emulator", "tls"],
    async run(ctx) {
      const url = new URL(ctx.endpoint);
      const plain = `http://${url.host}/`;
      a.status(await httpGet(`${plain}ready`, 2000), 200, "plain GET /ready");
      const client = makeClient(plain, ctx.key);
      ctx.defer(() => client.dispose());
      const database = await ctx.database("db", client);
      a.status(await database.read(), 200, "read database over plain HTTP");
      const account = await rawRequest({ endpoint: plain, key: ctx.key }, { method: "GET", path: "/" });
      a.status(account, 200, "GET / over plain HTTP");
      a.eq(account.json.writableLocations[0]?.databaseAccountEndpoint, plain, "writable location over plain HTTP");
    },
  },
  {
    name: "--no-tls refuses a TLS handshake",
    requires: ["emulator", "plain"],
    async run(ctx) {
      let failed = false;
      try {
        await handshake(ctx.endpoint);
      } catch {
        failed = true;
      }
      a.ok(failed, "a TLS handshake succeeded on a --no-tls server");
    },
  },
  {
    name: "--read-only-key: a client with it reads and queries; its writes get 401; a --secondary-key client writes",
    requires: ["managed"],
    async run(ctx) {
      const readOnlyKey = Buffer.from("a read-only key for the conformance suite").toString("base64");
      const secondaryKey = Buffer.from("a secondary key for the conformance suite").toString("base64");
      const server = new ServerProcess({ tls: ctx.tls, extraArgs: ["--read-only-key", readOnlyKey, "--secondary-key", secondaryKey] });
      ctx.defer(() => server.stop());
      await server.start();
      const writer = makeClient(server.endpoint, server.key);
      const reader = makeClient(server.endpoint, readOnlyKey);
      const secondary = makeClient(server.endpoint, secondaryKey);
      ctx.defer(() => { writer.dispose(); reader.dispose(); secondary.dispose(); });
      const { database } = await writer.databases.create({ id: "keys" });
      const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
      await container.items.create({ id: "a", pk: "p", n: 1 });

      const readerContainer = reader.database("keys").container("c");
      const { resource } = await readerContainer.item("a", "p").read();
      a.eq(resource?.n, 1, "the read-only client reads the item");
      const { resources } = await readerContainer.items.query("SELECT VALUE c.n FROM c").fetchAll();
      a.deepEq(resources, [1], "the read-only client queries");
      for (const [what, write] of [
        ["create", () => readerContainer.items.create({ id: "b", pk: "p" })],
        ["delete", () => readerContainer.item("a", "p").delete()],
        ["create a database", () => reader.databases.create({ id: "other" })],
      ]) {
        let status;
        try {
          await write();
        } catch (error) {
          status = error.code;
        }
        a.eq(status, 401, `a read-only ${what} is refused as the service refuses it`);
      }
      const created = await secondary.database("keys").container("c").items.create({ id: "b", pk: "p" });
      a.status(created, 201, "the secondary key writes");
      const { resources: ids } = await container.items.query("SELECT VALUE c.id FROM c").fetchAll();
      a.deepEq(ids.sort(), ["a", "b"], "only the secondary key's write happened");
    },
  },
];
