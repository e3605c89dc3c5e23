// What a query costs as the partition key and the index decide it, through the SDK: the IoT
// dashboard lesson (a per-tenant question on a container keyed by tenant and month against the
// same question fanned out over a container keyed by device, at 4 and 40 physical partitions),
// the index serving a range and an ORDER BY inside one logical partition, and counts answered
// from index entries alone.
import * as a from "../lib/assert.mjs";
import { rawRequest, seg } from "../lib/raw.mjs";

const TENANTS = 20;
const DEVICES_PER_TENANT = 5;
const DAYS = 10;
const READINGS_PER_DAY = 2;  // per device: 20 tenants × 5 devices × 10 days × 2 = 2,000 readings
const DAY_MS = 24 * 3600 * 1000;
const START = Date.UTC(2026, 10, 1);

function reading(tenant, device, day, slot) {
  // Devices report a few milliseconds apart: no two readings of a tenant share a time.
  const ts = START + day * DAY_MS + slot * (DAY_MS / READINGS_PER_DAY) + device * 10 + tenant;
  const tenantId = `t${String(tenant).padStart(2, "0")}`;
  return {
    id: `${tenantId}-d${device}-${day}-${slot}`,
    tenantId,
    deviceId: `${tenantId}-d${device}`,
    tenantMonth: `${tenantId}-2026-11`,
    ts,
    temperature: 15 + ((tenant * 7 + device * 3 + day + slot) % 20),
    firmware: `fw-${device % 3}`,
  };
}

function readings() {
  const all = [];
  for (let day = 0; day < DAYS; day++) {
    for (let tenant = 0; tenant < TENANTS; tenant++) {
      for (let device = 0; device < DEVICES_PER_TENANT; device++) {
        for (let slot = 0; slot < READINGS_PER_DAY; slot++) all.push(reading(tenant, device, day, slot));
      }
    }
  }
  return all;
}

// Creates `items` in `container` in bulk, 500 to a call, each under its `key` property.
async function bulkLoad(container, items, key) {
  for (let start = 0; start < items.length; start += 500) {
    const results = await container.items.executeBulkOperations(items.slice(start, start + 500).map((item) => ({
      operationType: "Create", partitionKey: item[key], resourceBody: item,
    })));
    a.ok(results.every((r) => r.response?.statusCode === 201), "every reading stored");
  }
}

// A container keyed by `key` with `throughput` (which sets its physical partitions), loaded with
// every reading in bulk.
async function loadedContainer(ctx, database, key, throughput) {
  const { container } = await database.containers.create({ id: ctx.uid("iot"), partitionKey: { paths: [`/${key}`] }, throughput });
  await bulkLoad(container, readings(), key);
  const { resources: ranges } = await container.readPartitionKeyRanges().fetchAll();
  return { container, partitions: ranges.length };
}

// Every page of 10 of `query` inside the logical partition `partitionKey`, explained.
async function pagesOf(ctx, database, container, query, partitionKey) {
  const pages = [];
  let continuation;
  do {
    const seen = await explain(ctx, database, container, query, partitionKey, undefined, { maxItemCount: 10, continuation });
    pages.push(seen);
    continuation = seen.continuation;
  } while (continuation);
  return pages;
}

// Runs a query to the end through the SDK; its rows and the RU of all its requests.
async function costOf(container, query, options = {}) {
  const response = await container.items.query(query, options).fetchAll();
  return { rows: response.resources, charge: response.requestCharge };
}

// One page of a query through a signed request, with the x-cosmolite-* headers the SDK hides:
// inside one logical partition (`partitionKey`), or in one physical partition (`rangeId`).
async function explain(ctx, database, container, query, partitionKey, rangeId, page = {}) {
  const headers = {
    "content-type": "application/query+json",
    "x-ms-documentdb-isquery": "True",
    "x-ms-max-item-count": page.maxItemCount ?? -1,
  };
  if (page.continuation) headers["x-ms-continuation"] = page.continuation;
  if (partitionKey !== undefined) headers["x-ms-documentdb-partitionkey"] = JSON.stringify([partitionKey]);
  if (rangeId !== undefined) {
    headers["x-ms-documentdb-query-enablecrosspartition"] = "True";
    headers["x-ms-documentdb-partitionkeyrangeid"] = rangeId;
  }
  const response = await ctx.raw({
    method: "POST",
    path: `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs`,
    body: { query: query.query, parameters: query.parameters },
    headers,
  });
  a.eq(response.status, 200, `${query.query}: ${response.text}`);
  return {
    rows: response.json.Documents,
    scanned: Number(response.headers["x-cosmolite-documents-scanned"]),
    access: response.headers["x-cosmolite-access-path"],
    charge: Number(response.headers["x-ms-request-charge"]),
    continuation: response.headers["x-ms-continuation"],
  };
}

const tenant = "t07";
const since = START + (DAYS - 1) * DAY_MS;  // the last day
const lastDayRows = DEVICES_PER_TENANT * READINGS_PER_DAY;

function lastDay(tenantFilter) {
  return {
    query: `SELECT * FROM c WHERE ${tenantFilter} AND c.ts >= @since`,
    parameters: [{ name: "@t", value: tenantFilter.includes("tenantMonth") ? `${tenant}-2026-11` : tenant }, { name: "@since", value: since }],
  };
}

function lastDayNewestFirst(tenantFilter) {
  const q = lastDay(tenantFilter);
  return { ...q, query: `${q.query} ORDER BY c.ts DESC` };
}

export default [
  {
    name: "the IoT lesson: one tenant's last day costs a few RU on a tenant-and-month key, and many times more fanned out over device keys, the gap growing with the partitions",
    async run(ctx) {
      const database = await ctx.database();
      const ratios = [];
      for (const throughput of [40000, 400000]) {
        const byDevice = await loadedContainer(ctx, database, "deviceId", throughput);
        const byTenantMonth = await loadedContainer(ctx, database, "tenantMonth", throughput);
        a.eq(byDevice.partitions, byTenantMonth.partitions, "the same physical partitions");

        const fannedOut = await costOf(byDevice.container, lastDay("c.tenantId = @t"));
        const wellKeyed = await costOf(byTenantMonth.container, lastDay("c.tenantMonth = @t"),
          { partitionKey: `${tenant}-2026-11` });
        a.eq(fannedOut.rows.length, lastDayRows, "fanned out: the tenant's last day");
        a.eq(wellKeyed.rows.length, lastDayRows, "well keyed: the tenant's last day");
        a.ok(wellKeyed.charge < 5, `well keyed: ${wellKeyed.charge} RU`);

        const fannedOutSorted = await costOf(byDevice.container, lastDayNewestFirst("c.tenantId = @t"));
        const wellKeyedSorted = await costOf(byTenantMonth.container, lastDayNewestFirst("c.tenantMonth = @t"),
          { partitionKey: `${tenant}-2026-11` });
        a.deepEq(wellKeyedSorted.rows.map((r) => r.id), fannedOutSorted.rows.map((r) => r.id), "the same rows, newest first");
        a.ok(wellKeyedSorted.charge < 5, `well keyed, newest first: ${wellKeyedSorted.charge} RU`);
        a.ok(wellKeyedSorted.charge < fannedOutSorted.charge, "ORDER BY keeps the lesson's direction");

        // The explanation a student reads: the index inside the partition, only the matches loaded.
        const seen = await explain(ctx, database, byTenantMonth.container, lastDay("c.tenantMonth = @t"), `${tenant}-2026-11`);
        a.eq(seen.access, "index lookup on /ts", "inside the partition the ts index serves");
        a.eq(seen.scanned, lastDayRows, "only the last day is loaded");
        const seenSorted = await explain(ctx, database, byTenantMonth.container, lastDayNewestFirst("c.tenantMonth = @t"), `${tenant}-2026-11`);
        a.eq(seenSorted.access, "index order on /ts (descending)", "ORDER BY walks the ts index");
        a.eq(seenSorted.scanned, lastDayRows, "the walk loads only the partition's last day");

        ratios.push(fannedOut.charge / wellKeyed.charge);
        console.log(`# ${byDevice.partitions} partitions: one tenant's last day ${wellKeyed.charge} RU keyed by tenant and month, ` +
          `${fannedOut.charge} RU fanned out over device keys (×${(fannedOut.charge / wellKeyed.charge).toFixed(1)}); ` +
          `newest first ${wellKeyedSorted.charge} RU vs ${fannedOutSorted.charge} RU`);
      }
      a.ok(ratios[1] >= 20, `at 40 partitions the fan-out costs ${ratios[1].toFixed(1)}× the keyed query`);
      a.ok(ratios[1] > 2 * ratios[0], `the gap grows with the partitions: ×${ratios[0].toFixed(1)} then ×${ratios[1].toFixed(1)}`);
    },
    timeoutMs: 120_000,
  },
  {
    name: "a count with one indexed filter is answered from index entries: no document loaded, a few RU",
    async run(ctx) {
      const { database, container } = await ctx.container({ partitionKey: { paths: ["/deviceId"] } });
      const all = readings().slice(0, 2000);
      await bulkLoad(container, all, "deviceId");
      const count = { query: "SELECT VALUE COUNT(1) FROM c WHERE c.tenantId = @t", parameters: [{ name: "@t", value: tenant }] };
      const expected = all.filter((r) => r.tenantId === tenant).length;
      const { rows, charge } = await costOf(container, count);
      a.deepEq(rows, [expected], "the count");
      // Each physical partition counts its share from its entries.
      const { resources: ranges } = await container.readPartitionKeyRanges().fetchAll();
      let counted = 0;
      for (const range of ranges) {
        const seen = await explain(ctx, database, container, count, undefined, range.id);
        a.eq(seen.access, "index only on /tenantId", "x-cosmolite-access-path: index only");
        a.eq(seen.scanned, 0, "no document loaded");
        counted += seen.rows[0];
      }
      a.eq(counted, expected, "the partitions' counts add up");
      // The same count with a filter the index cannot answer alone loads every match.
      const loaded = await costOf(container, {
        query: "SELECT VALUE COUNT(1) FROM c WHERE c.tenantId = @t AND c.temperature > 0", parameters: count.parameters,
      });
      a.deepEq(loaded.rows, [expected], "the same count");
      a.ok(charge < loaded.charge, `index only ${charge} RU < loading ${loaded.charge} RU`);
      console.log(`# COUNT of ${expected} matches: ${charge} RU from the index, ${loaded.charge} RU loading them`);
    },
  },
  {
    name: "inside a logical partition a filter on another indexed path reads only that partition's matches",
    async run(ctx) {
      const { database, container } = await ctx.container({ partitionKey: { paths: ["/tenantId"] } });
      const all = readings().slice(0, 2000);
      await bulkLoad(container, all, "tenantId");
      const device = `${tenant}-d2`;
      const query = { query: "SELECT c.id FROM c WHERE c.deviceId = @d", parameters: [{ name: "@d", value: device }] };
      const seen = await explain(ctx, database, container, query, tenant);
      const expected = all.filter((r) => r.deviceId === device).map((r) => r.id);
      a.deepEq(seen.rows.map((r) => r.id), expected, "the device's readings, in creation order");
      a.eq(seen.access, "index lookup on /deviceId", "the deviceId index");
      a.eq(seen.scanned, expected.length, "only the matches are loaded");
      // A filter on the partition key alone reads the partition in order.
      const whole = await explain(ctx, database, container, { query: "SELECT VALUE COUNT(1) FROM c WHERE c.tenantId = @t", parameters: [{ name: "@t", value: tenant }] }, tenant);
      a.deepEq(whole.rows, [all.filter((r) => r.tenantId === tenant).length], "the partition's count");
    },
  },
  {
    name: "a paged ORDER BY inside a logical partition resumes in index order: every page loads only its own rows",
    async run(ctx) {
      const { database, container } = await ctx.container({ partitionKey: { paths: ["/tenantId"] } });
      const all = readings();
      await bulkLoad(container, all, "tenantId");
      const query = {
        query: "SELECT c.id, c.ts FROM c WHERE c.tenantId = @t ORDER BY c.ts DESC",
        parameters: [{ name: "@t", value: tenant }],
      };
      const expected = all.filter((r) => r.tenantId === tenant).sort((x, y) => y.ts - x.ts).map((r) => r.id);
      const pages = await pagesOf(ctx, database, container, query, tenant);
      for (const page of pages) a.eq(page.access, "index order on /ts (descending)", "every page walks the ts index");
      const ids = pages.flatMap((page) => page.rows.map((r) => r.id));
      a.deepEq(ids, expected, "the pages add up to the partition, newest first");
      a.eq(pages.length, expected.length / 10, "pages of 10");
      // A page reads its 10 rows and one more to know that more follow, never the pages before.
      for (const [index, page] of pages.entries()) a.ok(page.scanned <= 11, `page ${index + 1} loaded ${page.scanned} documents`);
      const last = pages[pages.length - 1];
      a.ok(last.charge <= pages[0].charge * 1.2, `the last page costs ${last.charge} RU, the first ${pages[0].charge} RU`);
      // Through the SDK: the same rows.
      const { rows } = await costOf(container, query, { partitionKey: tenant, maxItemCount: 10 });
      a.deepEq(rows.map((r) => r.id), expected, "the SDK pages through the same rows");
    },
  },
  {
    name: "an equality and a range on other paths are intersected in the index: only the documents both name are loaded, and a count loads none",
    async run(ctx) {
      const { database, container } = await ctx.container({ partitionKey: { paths: ["/deviceId"] } });
      const all = readings();
      await bulkLoad(container, all, "deviceId");
      const parameters = [{ name: "@f", value: "fw-1" }, { name: "@since", value: since }];
      const expected = all.filter((r) => r.firmware === "fw-1" && r.ts >= since).map((r) => r.id).sort();
      const { resources: ranges } = await container.readPartitionKeyRanges().fetchAll();
      const query = { query: "SELECT c.id FROM c WHERE c.firmware = @f AND c.ts >= @since", parameters };
      const count = { query: "SELECT VALUE COUNT(1) FROM c WHERE c.firmware = @f AND c.ts >= @since", parameters };
      const ids = [];
      let loaded = 0;
      let counted = 0;
      for (const range of ranges) {
        const seen = await explain(ctx, database, container, query, undefined, range.id);
        a.eq(seen.access, "index lookup on /ts and /firmware", "the last day's entries intersected with the firmware's");
        ids.push(...seen.rows.map((r) => r.id));
        loaded += seen.scanned;
        const seenCount = await explain(ctx, database, container, count, undefined, range.id);
        a.eq(seenCount.access, "index only on /ts and /firmware", "the count intersects entries only");
        a.eq(seenCount.scanned, 0, "the count loads no document");
        counted += seenCount.rows[0];
      }
      a.deepEq(ids.sort(), expected, "the matches");
      a.eq(loaded, expected.length, "only the matches are loaded");
      a.eq(counted, expected.length, "the partitions' counts add up");
      const { rows } = await costOf(container, count);
      a.deepEq(rows, [expected.length], "the SDK's count");
    },
  },
  {
    name: "inside a logical partition a wide range is walked in index order: every page loads only its own rows, and the pages add up",
    async run(ctx) {
      const { database, container } = await ctx.container({ partitionKey: { paths: ["/tenantId"] } });
      const all = readings();
      await bulkLoad(container, all, "tenantId");
      // The first half of the month: half of every tenant's readings, 1,000 entries across the container.
      const from = START + (DAYS / 2) * DAY_MS;
      const query = { query: "SELECT c.id, c.ts FROM c WHERE c.ts >= @from", parameters: [{ name: "@from", value: from }] };
      const expected = all.filter((r) => r.tenantId === tenant && r.ts >= from).map((r) => r.id);
      const pages = await pagesOf(ctx, database, container, query, tenant);
      const ids = pages.flatMap((page) => page.rows.map((r) => r.id));
      a.eq(pages[0].access, "index walk on /ts", "the ts range walked inside the partition");
      a.deepEq([...ids].sort(), [...expected].sort(), "the pages add up to the tenant's matches, each once");
      for (const [index, page] of pages.entries()) a.ok(page.scanned <= 11, `page ${index + 1} loaded ${page.scanned} documents`);
      // Through the SDK: the same rows.
      const { rows } = await costOf(container, query, { partitionKey: tenant, maxItemCount: 10 });
      a.deepEq(rows.map((r) => r.id).sort(), [...expected].sort(), "the SDK pages through the same rows");
    },
  },
  {
    name: "aggregates, DISTINCT and GROUP BY of indexed paths are answered from their entries: no document loaded, the same answers through the SDK",
    async run(ctx) {
      const { database, container } = await ctx.container({ partitionKey: { paths: ["/deviceId"] } });
      const all = readings().slice(0, 1000);
      await bulkLoad(container, all, "deviceId");
      const mine = all.filter((r) => r.tenantId === tenant);
      const temperatures = mine.map((r) => r.temperature);
      const onFirmware = all.filter((r) => r.firmware === "fw-1");
      const { resources: ranges } = await container.readPartitionKeyRanges().fetchAll();
      const cases = [
        { query: "SELECT VALUE MAX(c.temperature) FROM c WHERE c.firmware = @f", access: "index only on /temperature and /firmware",
          expected: [Math.max(...onFirmware.map((r) => r.temperature))] },
        // A filter that names few documents: loading them costs less than reading every temperature.
        { query: "SELECT VALUE MAX(c.temperature) FROM c WHERE c.tenantId = @t", access: "index lookup on /tenantId",
          expected: [Math.max(...temperatures)], loads: true },
        // Without a filter, one physical partition of several finds its entries only by joining each
        // to its document: it loads its documents instead.
        { query: "SELECT VALUE SUM(c.temperature) FROM c", access: ranges.length === 1 ? "index only on /temperature" : "scan",
          expected: [all.reduce((sum, r) => sum + r.temperature, 0)], loads: ranges.length > 1 },
        { query: "SELECT VALUE AVG(c.temperature) FROM c WHERE c.temperature >= 30", access: "index only on /temperature",
          expected: [(() => { const hot = all.filter((r) => r.temperature >= 30); return hot.reduce((s, r) => s + r.temperature, 0) / hot.length; })()] },
        { query: "SELECT DISTINCT VALUE c.firmware FROM c", access: ranges.length === 1 ? "index only on /firmware" : "scan",
          expected: ["fw-0", "fw-1", "fw-2"], sort: true, loads: ranges.length > 1 },
        // Two paths, each read from its entries and joined by document.
        { query: "SELECT c.firmware, MAX(c.temperature) AS hottest FROM c GROUP BY c.firmware",
          access: ranges.length === 1 ? "index only on /firmware and /temperature" : "scan", sort: true, loads: ranges.length > 1,
          expected: ["fw-0", "fw-1", "fw-2"].map((f) => ({ firmware: f, hottest: Math.max(...all.filter((r) => r.firmware === f).map((r) => r.temperature)) })) },
        { query: "SELECT c.tenantId, COUNT(1) AS n FROM c WHERE c.firmware = @f GROUP BY c.tenantId",
          access: "index only on /tenantId and /firmware", sort: true,
          expected: [...new Set(onFirmware.map((r) => r.tenantId))].sort().map((t) => ({ tenantId: t, n: onFirmware.filter((r) => r.tenantId === t).length })) },
      ];
      const parameters = [{ name: "@t", value: tenant }, { name: "@f", value: "fw-1" }];
      const key = (row) => JSON.stringify(row);
      for (const c of cases) {
        for (const range of ranges) {
          const seen = await explain(ctx, database, container, { query: c.query, parameters }, undefined, range.id);
          a.eq(seen.access, c.access, `${c.query}: x-cosmolite-access-path`);
          if (!c.loads) a.eq(seen.scanned, 0, `${c.query}: no document loaded`);
        }
        const { rows } = await costOf(container, { query: c.query, parameters });
        const got = c.sort ? [...rows].sort((x, y) => key(x).localeCompare(key(y))) : rows;
        a.deepEq(got, c.expected, `${c.query}: the answer`);
      }
      // A document without a temperature: the entries no longer stand for every document, which
      // are loaded to aggregate, with the same answer.
      await container.items.create({ id: "no-reading", deviceId: "t07-d0", tenantId: tenant });
      const sum = await explain(ctx, database, container, { query: "SELECT VALUE SUM(c.temperature) FROM c" }, "t07-d0");
      a.eq(sum.access, "scan", "the documents are read");
      a.deepEq(sum.rows, [all.filter((r) => r.deviceId === "t07-d0").reduce((s, r) => s + r.temperature, 0)], "the sum");
    },
  },
  {
    name: "a composite index serves an equality and a range together, and an ORDER BY that starts with the equality's path (the troubleshooting guide's lesson)",
    async run(ctx) {
      const composite = "composite (/tenantId asc, /ts asc)";
      const { database, container } = await ctx.container({
        partitionKey: { paths: ["/deviceId"] },
        indexingPolicy: { compositeIndexes: [[{ path: "/tenantId", order: "ascending" }, { path: "/ts", order: "ascending" }]] },
      });
      const all = readings();
      await bulkLoad(container, all, "deviceId");
      const { resources: ranges } = await container.readPartitionKeyRanges().fetchAll();
      // The filter: one composite lookup names exactly the tenant's last day, and a count loads nothing.
      const parameters = [{ name: "@t", value: tenant }, { name: "@since", value: since }];
      const filter = { query: "SELECT c.id FROM c WHERE c.tenantId = @t AND c.ts >= @since", parameters };
      const count = { query: "SELECT VALUE COUNT(1) FROM c WHERE c.tenantId = @t AND c.ts >= @since", parameters };
      const expected = all.filter((r) => r.tenantId === tenant && r.ts >= since).map((r) => r.id).sort();
      const ids = [];
      let loaded = 0;
      let counted = 0;
      for (const range of ranges) {
        const seen = await explain(ctx, database, container, filter, undefined, range.id);
        a.eq(seen.access, `index lookup on ${composite}`, "the composite index serves both predicates");
        ids.push(...seen.rows.map((r) => r.id));
        loaded += seen.scanned;
        const seenCount = await explain(ctx, database, container, count, undefined, range.id);
        a.eq(seenCount.access, `index only on ${composite}`, "the count reads the composite entries alone");
        a.eq(seenCount.scanned, 0, "no document loaded for the count");
        counted += seenCount.rows[0];
      }
      a.deepEq(ids.sort(), expected, "the tenant's last day");
      a.eq(loaded, expected.length, "only the matches are loaded");
      a.eq(counted, expected.length, "the partitions' counts add up");

      // ORDER BY: by ts alone the tenant's readings are sorted; by (tenantId, ts) the composite
      // index is read in order from the tenant's first entry, and a page loads only its rows.
      const tenantParameters = [{ name: "@t", value: tenant }];
      const byTs = { query: "SELECT c.id FROM c WHERE c.tenantId = @t ORDER BY c.ts", parameters: tenantParameters };
      const byTenantTs = { query: "SELECT c.id FROM c WHERE c.tenantId = @t ORDER BY c.tenantId, c.ts", parameters: tenantParameters };
      let sortedLoaded = 0;
      let compositeLoaded = 0;
      for (const range of ranges) {
        const sorted = await explain(ctx, database, container, byTs, undefined, range.id, { maxItemCount: 10 });
        const inOrder = await explain(ctx, database, container, byTenantTs, undefined, range.id, { maxItemCount: 10 });
        a.deepEq(inOrder.rows, sorted.rows, "the same first page");
        a.eq(inOrder.access, `index order on ${composite}`, "the composite index in order");
        a.ok(inOrder.scanned <= 11, `the composite page loaded ${inOrder.scanned} documents`);
        sortedLoaded += sorted.scanned;
        compositeLoaded += inOrder.scanned;
      }
      a.ok(compositeLoaded < sortedLoaded, `first pages loaded ${compositeLoaded} documents in composite order, ${sortedLoaded} sorting`);
      const first = await container.items.query(byTs, { maxItemCount: 10 }).fetchNext();
      const firstComposite = await container.items.query(byTenantTs, { maxItemCount: 10 }).fetchNext();
      a.deepEq(firstComposite.resources, first.resources, "the SDK's first pages agree");
      a.ok(firstComposite.requestCharge < first.requestCharge,
        `first page: ${firstComposite.requestCharge} RU in composite order, ${first.requestCharge} RU sorting`);
      const { rows } = await costOf(container, byTenantTs);
      a.deepEq(rows.map((r) => r.id), all.filter((r) => r.tenantId === tenant).sort((x, y) => x.ts - y.ts).map((r) => r.id),
        "every page through the SDK, in ts order");
      console.log(`# composite index: the last day loads ${loaded} documents; first page ${firstComposite.requestCharge} RU in composite order, ${first.requestCharge} RU sorting`);
    },
  },
];
