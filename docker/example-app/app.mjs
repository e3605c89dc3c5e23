// An application container talking to cosmolite by its service name over HTTPS (docker/compose.yaml).
// It trusts the emulator's certificate authority, which it downloads from /_explorer/emulator.pem
// over plain HTTP on the same port (as the Testcontainers modules do), then uses the official SDK:
// it creates a database and a container if needed, writes one order and lists every order written
// so far, which shows that the data outlives container restarts.
//   COSMOS_ENDPOINT  default https://cosmolite:8081/
//   COSMOS_KEY       default the well-known emulator key
import https from "node:https";
import { CosmosClient } from "@azure/cosmos";

const endpoint = process.env.COSMOS_ENDPOINT ?? "https://cosmolite:8081/";
const key =
  process.env.COSMOS_KEY ?? "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

const certificateUrl = new URL("/_explorer/emulator.pem", endpoint);
certificateUrl.protocol = "http:";
const certificate = await (await fetch(certificateUrl)).text();

const client = new CosmosClient({ endpoint, key, agent: new https.Agent({ ca: certificate, keepAlive: true }) });
const { database } = await client.databases.createIfNotExists({ id: "shop" });
const { container } = await database.containers.createIfNotExists({ id: "orders", partitionKey: { paths: ["/customer"] } });
const order = { id: `order-${Date.now()}`, customer: "contoso", total: 42 };
const created = await container.items.create(order);
const { resources: orders, requestCharge } = await container.items
  .query({ query: "SELECT c.id FROM c WHERE c.customer = @customer", parameters: [{ name: "@customer", value: "contoso" }] })
  .fetchAll();
console.log(
  JSON.stringify({ endpoint, created: order.id, createCharge: created.requestCharge, orders: orders.map((o) => o.id), queryCharge: requestCharge }),
);
client.dispose();
