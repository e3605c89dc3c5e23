// Master-key authorization: wrong key, missing or malformed header, clock skew.
import crypto from "node:crypto";
import * as a from "../lib/assert.mjs";
import { seg } from "../lib/raw.mjs";

const wrongKey = () => crypto.randomBytes(64).toString("base64");

export default [
  {
    name: "a correctly signed raw request is accepted",
    async run(ctx) {
      const response = await ctx.raw({ method: "GET", path: "/dbs" });
      a.status(response, 200, "signed GET /dbs");
    },
  },
  {
    name: "SDK client with a wrong key gets 401 naming the signed payload",
    async run(ctx) {
      const client = ctx.newClient({ key: wrongKey() });
      ctx.defer(() => client.dispose());
      const error = await a.rejects(() => client.databases.create({ id: ctx.uid("db") }), 401, "wrong key");
      const message = `${error.message ?? ""} ${error.body?.message ?? ""}`;
      a.includes(message, "Server used the following payload to sign", "401 message");
    },
  },
  {
    name: "raw request with a wrong key answers 401 with the payload in the message",
    async run(ctx) {
      const response = await ctx.raw({ method: "GET", path: "/dbs", key: wrongKey() });
      a.rawError(response, 401, "wrong key");
      a.includes(response.json.message, "Server used the following payload to sign", "401 message");
      a.eq(response.json.code, "Unauthorized", "error code");
    },
  },
  {
    name: "no authorization header answers 401",
    async run(ctx) {
      for (const path of ["/", "/dbs", "/dbs/x/colls/y/docs/z"]) {
        const response = await ctx.raw({ method: "GET", path, auth: "none" });
        a.rawError(response, 401, `GET ${path} without authorization`);
      }
    },
  },
  {
    name: "malformed authorization headers answer 401",
    async run(ctx) {
      const values = [
        "garbage",
        encodeURIComponent("type=master&ver=1.0&sig="),
        encodeURIComponent("type=master&ver=1.0&sig=!!!not-base64!!!"),
        encodeURIComponent("type=master&ver=1.0"),
        encodeURIComponent("type=unknown&ver=1.0&sig=AAAA"),
        "%ZZ",
      ];
      for (const auth of values) {
        const response = await ctx.raw({ method: "GET", path: "/dbs", auth });
        a.rawError(response, 401, `authorization ${JSON.stringify(auth)}`);
      }
    },
  },
  {
    name: "signature for another verb or resource answers 401",
    async run(ctx) {
      const database = await ctx.database();
      const path = `/dbs/${seg(database.id)}`;
      a.status(await ctx.raw({ method: "GET", path }), 200, "correct signature");
      a.rawError(await ctx.raw({ method: "GET", path, resourceLink: "dbs/other" }), 401, "signed for another link");
      a.rawError(await ctx.raw({ method: "GET", path, resourceType: "colls" }), 401, "signed for another type");
      a.rawError(await ctx.raw({ method: "GET", path, headers: { authorization: undefined } }), 401, "unsigned");
    },
  },
  {
    name: "x-ms-date 20 minutes in the past (correctly signed) answers 403",
    async run(ctx) {
      const date = new Date(Date.now() - 20 * 60 * 1000).toUTCString();
      const response = await ctx.raw({ method: "GET", path: "/dbs", date });
      a.rawError(response, 403, "stale x-ms-date");
    },
  },
  {
    name: "x-ms-date 20 minutes in the future (correctly signed) answers 403",
    async run(ctx) {
      const date = new Date(Date.now() + 20 * 60 * 1000).toUTCString();
      const response = await ctx.raw({ method: "GET", path: "/dbs", date });
      a.rawError(response, 403, "future x-ms-date");
    },
  },
  {
    name: "x-ms-date 5 minutes off is still accepted",
    async run(ctx) {
      const date = new Date(Date.now() - 5 * 60 * 1000).toUTCString();
      a.status(await ctx.raw({ method: "GET", path: "/dbs", date }), 200, "x-ms-date 5 minutes old");
    },
  },
  {
    name: "missing or unparseable x-ms-date answers 401",
    async run(ctx) {
      const garbled = await ctx.raw({ method: "GET", path: "/dbs", date: "yesterday at noon" });
      a.rawError(garbled, 401, "unparseable x-ms-date");
      const missing = await ctx.raw({ method: "GET", path: "/dbs", headers: { "x-ms-date": undefined } });
      a.rawError(missing, 401, "no x-ms-date (nor Date) header");
    },
  },
];
