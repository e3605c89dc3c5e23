// The database account resource: GET / and the SDK's getDatabaseAccount.
import * as a from "../lib/assert.mjs";
import { rawRequest } from "../lib/raw.mjs";
import { ServerProcess } from "../lib/server.mjs";

function checkLocations(body, expectedEndpoint, what, managed) {
  for (const field of ["writableLocations", "readableLocations"]) {
    a.isType(body[field], "array", `${what}: ${field}`);
    a.ok(body[field].length >= 1, `${what}: ${field} is empty`);
    for (const location of body[field]) {
      a.isType(location.name, "string", `${what}: ${field}[].name`);
      a.isType(location.databaseAccountEndpoint, "string", `${what}: ${field}[].databaseAccountEndpoint`);
      if (managed) {
        a.eq(location.databaseAccountEndpoint, expectedEndpoint, `${what}: ${field}[].databaseAccountEndpoint`);
      } else {
        a.match(location.databaseAccountEndpoint, /^https:\/\//, `${what}: ${field}[].databaseAccountEndpoint`);
      }
    }
  }
}

export default [
  {
    name: "getDatabaseAccount through the SDK",
    async run(ctx) {
      const response = await ctx.client.getDatabaseAccount();
      a.status(response, 200, "getDatabaseAccount");
      const account = response.resource;
      a.ok(account, "getDatabaseAccount: no resource");
      // The SDK drops the locations of an account whose id is "localhost" (the emulators' id).
      a.isType(account.writableLocations, "array", "writableLocations");
      a.isType(account.readableLocations, "array", "readableLocations");
      a.eq(account.consistencyPolicy, "Session", "consistencyPolicy (default consistency level)");
      a.eq(account.enableMultipleWritableLocations, false, "enableMultipleWritableLocations");
    },
  },
  {
    name: "GET / has the account shape and echoes the endpoint used",
    async run(ctx) {
      const response = await ctx.raw({ method: "GET", path: "/" });
      a.status(response, 200, "GET /");
      a.charge(response.headers, "GET /", { allowZero: true });
      a.match(a.header(response.headers, "content-type"), /application\/json/, "content-type");
      const body = response.json;
      a.ok(body && typeof body === "object", `GET /: body is not JSON: ${response.text.slice(0, 200)}`);
      a.isType(body.id, "string", "id");
      a.isType(body._rid, "string", "_rid");
      a.eq(body._dbs, "//dbs/", "_dbs");
      checkLocations(body, ctx.endpoint, "GET /", ctx.managed);
      a.eq(body.userConsistencyPolicy?.defaultConsistencyLevel, "Session", "userConsistencyPolicy.defaultConsistencyLevel");
      a.isType(body.queryEngineConfiguration, "string", "queryEngineConfiguration");
      let config;
      try {
        config = JSON.parse(body.queryEngineConfiguration);
      } catch (error) {
        a.fail(`queryEngineConfiguration is not a JSON string: ${error.message}`);
      }
      a.isType(config, "object", "parsed queryEngineConfiguration");
      a.isType(config.maxSqlQueryInputLength, "number", "queryEngineConfiguration.maxSqlQueryInputLength");
      a.isType(body.enableMultipleWriteLocations, "boolean", "enableMultipleWriteLocations");
    },
  },
  {
    name: "GET / advertises https://127.0.0.1 with the port the client used, as the official emulator; --advertise-host names another host",
    requires: ["emulator", "managed"],
    async run(ctx) {
      const url = new URL(ctx.endpoint);
      const response = await ctx.raw({ method: "GET", path: "/", headers: { host: `localhost:${url.port}` } });
      a.status(response, 200, "GET / with Host localhost");
      checkLocations(response.json, `${url.protocol}//127.0.0.1:${url.port}/`, "GET / with Host localhost", true);

      const server = await new ServerProcess({ tls: ctx.tls, extraArgs: ["--advertise-host", "cosmolite.example"] }).start();
      ctx.defer(() => server.stop());
      const advertised = await rawRequest({ endpoint: server.endpoint, key: ctx.key }, { method: "GET", path: "/" });
      a.status(advertised, 200, "GET / of a server with --advertise-host");
      const port = new URL(server.endpoint).port;
      checkLocations(advertised.json,
        `${url.protocol}//cosmolite.example:${port}/`, "--advertise-host", true);
    },
  },
  {
    name: "the SDK works through an endpoint named localhost",
    requires: ["emulator"],
    async run(ctx) {
      const url = new URL(ctx.endpoint);
      const client = ctx.newClient({}, `${url.protocol}//localhost:${url.port}/`);
      ctx.defer(() => client.dispose());
      const database = await ctx.database("db", client);
      const { resource } = await database.read();
      a.eq(resource.id, database.id, "database read through localhost");
    },
  },
];
