"""The report of a benchmark run: bench/results/results.md from the records run_bench.py collects.

`render(info, records, problems, args)` turns the load generator's JSON lines (one per measured run)
into the Markdown tables: goals, throughput and latency, ratios, bulk beside point creates, queries,
change feed, indexing, telemetry, start-up. Standard library only; run_bench.py --render-only calls
it on a saved results.json.
"""

import statistics

PEER_PACKAGE = "@vercel/cosmosdb-server"
PEER_VERSION = "1.0.1"

# Goals from the benchmark issue; the table prints PASS or MISS for each.
GOAL_CREATES_PER_S = 20_000
GOAL_CREATES_VS_PEER = 2.0
GOAL_READS_VS_PEER = 3.0
GOAL_VS_RAW_BEAST = 0.5
GOAL_TELEMETRY_PER_S = 18_000
GOAL_TELEMETRY_MAX_LAG_MS = 1000
GOAL_READY_MS = 100
GOAL_IDLE_RSS_MB = 15
GOAL_ORDERBY_VS_PEER = 30
GOAL_ORDERBY_SCALING = 12  # time per ORDER BY query at 100k documents ÷ at 10k
# cosmolite only: the same ORDER BY run range by range on four physical partitions, as an SDK
# runs it after the gateway's 400/1004 (the peer has one partition key range and no query plan).
FANOUT_WORKLOAD = "query-fanout"
# cosmolite only: the latest-version change feed of the same four-range container.
CHANGEFEED_WORKLOAD = "changefeed"
# cosmolite only: what the indexing policy costs and buys. Creates under the default policy and under
# one that indexes only the partition key; an equality filter with n indexed and with n excluded.
NARROW_POLICY = '{"includedPaths":[{"path":"/pk/?"}],"excludedPaths":[{"path":"/*"}]}'
FILTER_WORKLOAD = "query-filter"
# cosmolite only: 1 KB creates in bulk requests of BULK_OPERATIONS each (the SDKs' bulk mode), run right
# after the point creates so the two compare per document.
BULK_WORKLOAD = "bulk-create"
BULK_OPERATIONS = 100


NOISE_THRESHOLD = 0.25  # replaced by --noise-threshold


def quiet(records):
    """The runs during which other work used at most NOISE_THRESHOLD cores; all runs if none did."""
    calm = [r for r in records if r.get("other_load_cores", 0) <= NOISE_THRESHOLD]
    return calm or records


def median_of(records, target, workload, key, documents=None):
    runs = quiet(runs_of(records, target, workload, documents))
    values = [r[key] for r in runs if r.get(key) is not None and r[key] >= 0]
    return statistics.median(values) if values else None


def runs_of(records, target, workload, documents=None):
    """A target's runs of a workload; `documents` picks the query workloads' size."""
    return [r for r in records if r.get("target") == target and r.get("workload") == workload
            and (documents is None or r.get("documents") == documents)]


def fmt(value, digits=0, suffix=""):
    if value is None:
        return "n/a"
    if digits == 0:
        return f"{value:,.0f}{suffix}"
    return f"{value:,.{digits}f}{suffix}"


def times_text(value):
    """A ratio written as 2.5×, or n/a."""
    return "n/a" if value is None else f"{value:,.1f}×"


def ratio(numerator, denominator):
    if numerator is None or not denominator:
        return None
    return numerator / denominator


def verdict(ok):
    if ok is None:
        return "n/a"
    return "PASS" if ok else "MISS"


# workload -> (short name, the query it sends)
QUERY_ROWS = {
    "query-single": ("single-partition query",
                     "`SELECT * FROM c WHERE c.pk = @pk AND c.n >= @lo` with the partition-key header, first page "
                     "(x-ms-max-item-count 10)"),
    "query-orderby": ("cross-partition ORDER BY",
                      "`SELECT TOP 10 c.id, c.n FROM c WHERE c.n >= @lo ORDER BY c.n` with "
                      "x-ms-documentdb-query-enablecrosspartition"),
    "query-tag-orderby": ("equality + range + ORDER BY",
                          "`SELECT TOP 10 c.id, c.n FROM c WHERE c.tag = @t AND c.n >= @lo ORDER BY c.n`, "
                          "cross-partition (a tenth of the documents carry the tag)"),
    "query-count": ("COUNT with an equality",
                    "`SELECT VALUE COUNT(1) FROM c WHERE c.tag = @t`, cross-partition (a tenth of the documents)"),
}

POINT_ROWS = [
    # (label, target, workload)
    ("point creates (1 KB)", "cosmolite", "create"),
    ("point creates (1 KB)", "cosmolite-http", "create"),
    ("point creates (1 KB)", "cosmolite-memory", "create"),
    ("point creates (1 KB)", "peer", "create"),
    ("create-shaped POST", "raw-beast", "create"),
    ("create-shaped POST", "raw-beast-http", "create"),
    ("INSERT, 1 txn each", "sqlite", "insert"),
    ("point reads", "cosmolite", "read"),
    ("point reads", "cosmolite-http", "read"),
    ("point reads", "cosmolite-memory", "read"),
    ("point reads", "peer", "read"),
    ("read-shaped GET", "raw-beast", "read"),
    ("read-shaped GET", "raw-beast-http", "read"),
    ("SELECT by key", "sqlite", "select"),
    ("upserts (replace, 1 KB)", "cosmolite", "upsert"),
    ("upserts (replace, 1 KB)", "peer", "upsert"),
]

TARGET_NAMES = {
    "cosmolite": "cosmolite (HTTPS)",
    "cosmolite-http": "cosmolite (plain HTTP)",
    "cosmolite-memory": "cosmolite --in-memory (HTTPS)",
    "peer": f"peer {PEER_PACKAGE} {PEER_VERSION} (HTTPS)",
    "raw-beast": "raw Beast server (HTTPS)",
    "raw-beast-http": "raw Beast server (plain HTTP)",
    "sqlite": "raw SQLite (no HTTP)",
}


def render_bulk(w, records, args):
    """Bulk creates beside point creates on the same server, per document."""
    bulk_runs = runs_of(records, "cosmolite", BULK_WORKLOAD)
    if not bulk_runs:
        return
    m = lambda workload, key: median_of(records, "cosmolite", workload, key)  # noqa: E731
    per_request = bulk_runs[0].get("operations_per_request", BULK_OPERATIONS)
    w("## Bulk creates vs point creates (cosmolite, HTTPS, 1 KB documents, medians)")
    w("")
    w(f"Bulk: `POST …/docs` with `x-ms-cosmos-is-batch-request: True`, `x-ms-cosmos-batch-atomic: False`, "
      f"`x-ms-cosmos-batch-continue-on-error: True` and `x-ms-documentdb-partitionkeyrangeid` (as the Java and "
      f".NET SDKs group bulk operations per physical partition), {per_request} `Create` operations per request "
      f"over partition keys p0…p99, into a fresh one-partition container; the same documents as the point "
      f"creates, {args.connections} connections. A request counts only when all its operations applied (200).")
    w("")
    w("| creates | docs/s | runs (docs/s) | requests/s | p50 ms per request | p99 ms per request "
      "| server CPU µs/doc | server CPU cores | client CPU µs/doc | RU per doc | errors | other load cores |")
    w("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    point_runs = runs_of(records, "cosmolite", "create")
    rows = [("point (one per request)", "create", point_runs, 1),
            (f"bulk ({per_request} per request)", BULK_WORKLOAD, bulk_runs, per_request)]
    docs_per_s = {}
    cpu_per_doc = {}
    for name, workload, runs, per in rows:
        if not runs:
            continue
        per_run = " / ".join(fmt(r.get("ops_per_s", 0) * per) +
                             ("†" if r.get("other_load_cores", 0) > NOISE_THRESHOLD else "") for r in runs)
        requests = m(workload, "ops_per_s")
        cpu = m(workload, "server_cpu_us_per_op")
        client = m(workload, "client_cpu_us_per_op")
        charge = m(workload, "charge_mean")
        docs_per_s[workload] = requests and requests * per
        cpu_per_doc[workload] = cpu and cpu / per
        w(f"| {name} | {fmt(docs_per_s[workload])} | {per_run} | {fmt(requests)} | {fmt(m(workload, 'p50_ms'), 2)} "
          f"| {fmt(m(workload, 'p99_ms'), 2)} | {fmt(cpu_per_doc[workload], 1)} "
          f"| {fmt(m(workload, 'server_cpu_cores'), 2)} | {fmt(client and client / per, 1)} "
          f"| {fmt(charge and charge / per, 2)} | {sum(r.get('errors', 0) for r in runs)} "
          f"| {fmt(m(workload, 'other_load_cores'), 2)} |")
    w("")
    speed = ratio(docs_per_s.get(BULK_WORKLOAD), docs_per_s.get("create"))
    cpu_saving = ratio(cpu_per_doc.get("create"), cpu_per_doc.get(BULK_WORKLOAD))
    w(f"Bulk is {times_text(speed)} faster per document than point creates (docs/s), and the server spends "
      f"{times_text(cpu_saving)} less CPU per document (point ÷ bulk µs/doc). The server applies each bulk "
      f"operation as if it were sent alone (`RunBulk` in engine/items/batch.cc): bulk saves the per-request "
      f"work (TLS records, HTTP parsing, the signature check, routing, response headers), not the storage work.")
    w("")


def render_queries(w, records, args):
    m = lambda target, workload, key, documents: median_of(records, target, workload, key, documents)  # noqa: E731
    if not any(r.get("workload") in QUERY_ROWS for r in records):
        return
    w("## Queries (medians)")
    w("")
    for workload, (what, query) in QUERY_ROWS.items():
        w(f"- **{what}**: {query}.")
    w("")
    w("| query | documents | target | queries/s | runs (queries/s) | p50 ms | p99 ms | RU per query "
      "| server CPU µs/query | server RSS MB | errors | set-up s | other load cores |")
    w("|---|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---|---:|")
    for documents in args.query_documents:
        for workload, (what, _query) in QUERY_ROWS.items():
            for target in ["cosmolite", "peer"]:
                runs = runs_of(records, target, workload, documents)
                if not runs:
                    w(f"| {what} | {documents:,} | {TARGET_NAMES[target]} | n/a | did not finish (see problems) "
                      f"| | | | | | | | |")
                    continue
                per_run = " / ".join(fmt(r.get("ops_per_s"), 1) +
                                     ("†" if r.get("other_load_cores", 0) > NOISE_THRESHOLD else "") for r in runs)
                setup = runs[0]
                setup_text = (f"{fmt(setup.get('setup_seconds'), 1)} "
                              f"({'seeded' if setup.get('seeded') else 'reused'})")
                w(f"| {what} | {documents:,} | {TARGET_NAMES[target]} "
                  f"| {fmt(m(target, workload, 'ops_per_s', documents), 1)} | {per_run} "
                  f"| {fmt(m(target, workload, 'p50_ms', documents), 2)} "
                  f"| {fmt(m(target, workload, 'p99_ms', documents), 2)} "
                  f"| {fmt(m(target, workload, 'charge_mean', documents), 2)} "
                  f"| {fmt(m(target, workload, 'server_cpu_us_per_op', documents))} "
                  f"| {fmt(m(target, workload, 'server_rss_mb', documents), 1)} "
                  f"| {sum(r.get('errors', 0) for r in runs)} | {setup_text} "
                  f"| {fmt(m(target, workload, 'other_load_cores', documents), 2)} |")
    w("")
    if len(args.query_documents) >= 2:
        small, large = min(args.query_documents), max(args.query_documents)
        w(f"Time per query, {large:,} ÷ {small:,} documents (the ratio of queries/s): "
          + "; ".join(f"{TARGET_NAMES[target]}: " + ", ".join(
              f"{QUERY_ROWS[workload][0]} "
              f"{times_text(ratio(m(target, workload, 'ops_per_s', small), m(target, workload, 'ops_per_s', large)))}"
              for workload in QUERY_ROWS) for target in ["cosmolite", "peer"]) + ".")
        w("")
    w("Documents are 256 bytes (`seed-N` with `\"n\": N`, `\"tag\": \"t{N mod 10}\"`, partition key `p{N mod 100}`), "
      "upserted before the clock "
      "into a container named after the count and reused when it already holds them (set-up s: counting, "
      "plus seeding when it happened). Before the clock, one answer is checked against the seeded data "
      "(rows, order, partition). RU per query: mean `x-ms-request-charge` of a page (the peer always answers 1). "
      "The peer evaluates every query over a copy of all its documents, single-partition ones included.")
    w("")


def render_fanout(w, records, args):
    m = lambda key, documents: median_of(records, "cosmolite", FANOUT_WORKLOAD, key, documents)  # noqa: E731
    if not runs_of(records, "cosmolite", FANOUT_WORKLOAD):
        return
    w("## Cross-partition ORDER BY on four physical partitions (cosmolite, medians)")
    w("")
    w("`SELECT TOP 10 c.id, c.n FROM c WHERE c.n >= @lo ORDER BY c.n` on a container created with 40,000 RU/s (four "
      "partition key ranges), run as an SDK runs it after the gateway's 400/1004: the plan's rewritten query "
      "(`orderByItems` + `payload`) once per range with `x-ms-documentdb-partitionkeyrangeid`. One query is four "
      "requests; the figures below are per query (requests/s ÷ 4, RU and CPU × 4).")
    w("")
    w("| documents | queries/s | p50 ms per range request | RU per query | server CPU ms per query | server RSS MB |")
    w("|---:|---:|---:|---:|---:|---:|")
    rates = {}
    for documents in args.query_documents:
        ops = m("ops_per_s", documents)
        rates[documents] = ops / 4 if ops else None
        charge = m("charge_mean", documents)
        cpu = m("server_cpu_us_per_op", documents)
        w(f"| {documents:,} | {fmt(rates[documents], 1)} | {fmt(m('p50_ms', documents), 1)} "
          f"| {fmt(charge * 4 if charge else None, 0)} | {fmt(cpu * 4 / 1000 if cpu else None, 1)} "
          f"| {fmt(m('server_rss_mb', documents), 1)} |")
    w("")
    if len(args.query_documents) >= 2:
        small, large = min(args.query_documents), max(args.query_documents)
        w(f"Time per query, {large:,} ÷ {small:,} documents: {times_text(ratio(rates[small], rates[large]))} "
          f"(goal ≤ {GOAL_ORDERBY_SCALING}×).")
        w("")


def render_changefeed(w, records, args):
    m = lambda key, documents: median_of(records, "cosmolite", CHANGEFEED_WORKLOAD, key, documents)  # noqa: E731
    if not runs_of(records, "cosmolite", CHANGEFEED_WORKLOAD):
        return
    w("## Change feed, latest version (cosmolite, the four-range query container)")
    w("")
    w("Drain: one consumer reads every range from the beginning, 1,000 items a page, until 304, before the clock "
      "(it must see every document exactly once). Pages: the timed load reads 1,000-item pages from random points "
      "of the feed on all four ranges.")
    w("")
    w("| documents | drain items/s | drain s | pages/s | p50 ms per page | RU per page | server CPU µs per page |")
    w("|---:|---:|---:|---:|---:|---:|---:|")
    for documents in args.query_documents:
        w(f"| {documents:,} | {fmt(m('drain_items_per_s', documents))} | {fmt(m('drain_seconds', documents), 2)} "
          f"| {fmt(m('ops_per_s', documents), 1)} | {fmt(m('p50_ms', documents), 1)} "
          f"| {fmt(m('charge_mean', documents), 1)} | {fmt(m('server_cpu_us_per_op', documents))} |")
    w("")


def render_indexing(w, records, args):
    m = lambda target, workload, key, documents=None: median_of(records, target, workload, key, documents)  # noqa: E731
    if runs_of(records, "cosmolite-default-index", "create"):
        w("## Indexing policy and write cost (cosmolite, 1 KB point creates, medians)")
        w("")
        w(f"Default policy versus one that indexes only `/pk/?` (`{NARROW_POLICY}`).")
        w("")
        w("| policy | creates/s | RU per create | p50 ms | server CPU µs/op |")
        w("|---|---:|---:|---:|---:|")
        for label, name in (("cosmolite-default-index", "default"), ("cosmolite-narrow-index", "narrow")):
            w(f"| {name} | {fmt(m(label, 'create', 'ops_per_s'))} | {fmt(m(label, 'create', 'charge_mean'), 2)} "
              f"| {fmt(m(label, 'create', 'p50_ms'), 2)} | {fmt(m(label, 'create', 'server_cpu_us_per_op'))} |")
        w("")
    if runs_of(records, "cosmolite-indexed", FILTER_WORKLOAD):
        w("## An equality filter with and without an index (cosmolite, `SELECT * FROM c WHERE c.n = @n`, medians)")
        w("")
        w("| documents | index on n | queries/s | RU per query | p50 ms | server CPU µs/query |")
        w("|---:|---|---:|---:|---:|---:|")
        for documents in args.query_documents:
            for label, name in (("cosmolite-indexed", "yes"), ("cosmolite-unindexed", "excluded")):
                w(f"| {documents:,} | {name} | {fmt(m(label, FILTER_WORKLOAD, 'ops_per_s', documents), 1)} "
                  f"| {fmt(m(label, FILTER_WORKLOAD, 'charge_mean', documents), 2)} "
                  f"| {fmt(m(label, FILTER_WORKLOAD, 'p50_ms', documents), 2)} "
                  f"| {fmt(m(label, FILTER_WORKLOAD, 'server_cpu_us_per_op', documents))} |")
        w("")


def render_writes_beside_scans(w, records, args):
    m = lambda target, workload, key, documents=None: median_of(records, target, workload, key, documents)  # noqa: E731
    if not runs_of(records, "cosmolite-beside-scans", "create"):
        return
    documents = min(args.query_documents)
    w("## Writes beside scanning queries (cosmolite, medians)")
    w("")
    w(f"1 KB point creates on {args.connections} connections while 2 more connections keep running the "
      f"unindexed equality filter of the table above over {documents:,} documents (each query reads every "
      "document). Reads run on SQLite snapshots of their own, beside the writer.")
    w("")
    w("| creates | creates/s | p50 ms | p99 ms | server CPU cores | scanning queries/s |")
    w("|---|---:|---:|---:|---:|---:|")
    w(f"| alone (default policy, above) | {fmt(m('cosmolite-default-index', 'create', 'ops_per_s'))} "
      f"| {fmt(m('cosmolite-default-index', 'create', 'p50_ms'), 2)} "
      f"| {fmt(m('cosmolite-default-index', 'create', 'p99_ms'), 2)} "
      f"| {fmt(m('cosmolite-default-index', 'create', 'server_cpu_cores'), 2)} "
      f"| alone: {fmt(m('cosmolite-unindexed', FILTER_WORKLOAD, 'ops_per_s', documents), 1)} |")
    w(f"| beside the scans | {fmt(m('cosmolite-beside-scans', 'create', 'ops_per_s'))} "
      f"| {fmt(m('cosmolite-beside-scans', 'create', 'p50_ms'), 2)} "
      f"| {fmt(m('cosmolite-beside-scans', 'create', 'p99_ms'), 2)} "
      f"| {fmt(m('cosmolite-beside-scans', 'create', 'server_cpu_cores'), 2)} "
      f"| meanwhile: {fmt(m('cosmolite-scans', FILTER_WORKLOAD, 'ops_per_s', documents), 1)} |")
    w("")


def render_reads_beside_endless(w, records, args):
    m = lambda target, key: median_of(records, target, "read", key)  # noqa: E731
    if not runs_of(records, "cosmolite-beside-endless", "read"):
        return
    w("## Point reads beside endless queries (cosmolite, medians)")
    w("")
    w(f"Point reads on {args.connections} connections while 4 more connections keep sending "
      "`SELECT VALUE COUNT(1) FROM c JOIN a IN c.arr JOIN b IN c.arr JOIN d IN c.arr` over one document of "
      "1,000 numbers (a billion rows that cannot end their page early; each is abandoned at the server's "
      "`--query-time-limit`, 30 s, with 408, and sent again).")
    w("")
    w("| point reads | reads/s | p50 ms | p99 ms | server CPU cores |")
    w("|---|---:|---:|---:|---:|")
    for label, name in (("cosmolite", "alone (above)"), ("cosmolite-beside-endless", "beside 4 endless queries")):
        w(f"| {name} | {fmt(m(label, 'ops_per_s'))} | {fmt(m(label, 'p50_ms'), 2)} | {fmt(m(label, 'p99_ms'), 2)} "
          f"| {fmt(m(label, 'server_cpu_cores'), 2)} |")
    w("")


def render_query_engine(w, records):
    engine = next(iter(runs_of(records, "query-engine", "parse")), None)
    if engine is None:
        return
    w(f"## Query front end (`bench_query_parse`, {engine.get('queries')} representative queries, one thread)")
    w("")
    w("| step | per second | µs per query |")
    w("|---|---:|---:|")
    for key, what in [("parse_bind", "parse + bind, fresh each time (no cache)"),
                      ("cached_prepare", "PreparedQueryCache::Prepare, already cached"),
                      ("parse_bind_plan", "parse + bind + SDK query plan")]:
        if engine.get(f"{key}_per_s") is not None:
            w(f"| {what} | {fmt(engine.get(f'{key}_per_s'))} | {fmt(engine.get(f'{key}_us'), 2)} |")
    w("")


def render_scripts(w, records):
    scripts = next(iter(runs_of(records, "scripts", "scripts")), None)
    if scripts is None:
        return
    w(f"## Server-side JavaScript (`bench_scripts`, in process, {scripts.get('documents')} documents of ~300 bytes)")
    w("")
    w("| work | with a script, µs | without, µs | ratio |")
    w("|---|---:|---:|---:|")
    rows = [("an empty stored procedure (JavaScript only / whole execution)", "empty_script_engine_us", "empty_procedure_us"),
            ("per document created: bulk-import procedure / point creates", "procedure_create_per_document_us",
             "point_create_per_document_us"),
            ("per document deleted: bulk-delete procedure / point deletes", "procedure_delete_per_document_us",
             "point_delete_per_document_us"),
            ("per document of a query: a UDF call / the same expression natively", "udf_query_per_document_us",
             "native_query_per_document_us")]
    for what, scripted, plain in rows:
        a, b = scripts.get(scripted), scripts.get(plain)
        ratio = fmt(a / b, 2) if a is not None and b else "–"
        if scripted == "empty_script_engine_us":
            ratio = "–"
        w(f"| {what} | {fmt(a, 1)} | {fmt(b, 1)} | {ratio} |")
    w("")


def render_search(w, records):
    search = next(iter(runs_of(records, "search", "search")), None)
    if search is None:
        return
    w("## Search (`bench_search`, in process)")
    w("")
    w("`SELECT TOP 10 c.id FROM c ORDER BY VectorDistance(c.embedding, @q)` (cosine, float32 embeddings, one "
      "physical partition), µs median; the floor scores the same vectors packed in one array with the index's "
      "kernel and keeps a top-10 heap. Every answer equals the floor's.")
    w("")
    w("| documents × dimensions | floor | vector index | × floor | with a filter (a tenth) | × floor | no vector index | RU: index / none |")
    w("|---|---:|---:|---:|---:|---:|---:|---|")
    for f in search.get("vector", []):
        w(f"| {f['documents']:,} × {f['dimensions']} | {fmt(f['floor_us'])} | {fmt(f['indexed_us'])} | "
          f"{fmt(f['indexed_to_floor'], 2)} | {fmt(f['indexed_filtered_us'])} | {fmt(f['indexed_filtered_to_floor'], 2)} | "
          f"{fmt(f.get('scanned_us'))} | {fmt(f.get('indexed_ru'), 2)} / {fmt(f.get('scanned_ru'), 2)} |")
    if search.get("scaling"):
        vectors = search.get("vector", [])
        floor_scaling = ratio(vectors[-1]["floor_us"], vectors[0]["floor_us"]) if len(vectors) >= 2 else None
        w("")
        w(f"Largest against smallest: the index {fmt(search['scaling'], 1)}×, the floor {fmt(floor_scaling, 1)}× "
          "(goal: at most ×12 for 10× the documents; goal for the index: within 2× of the floor).")
    text = search.get("full_text")
    if text:
        w("")
        w(f"Full-text search over {text['documents']:,} short documents (µs median, RU):")
        w("")
        w("| | with a full-text index | without |")
        w("|---|---|---|")
        w(f"| create (µs per document) | {fmt(text['indexed_create_us'], 1)} | {fmt(text['plain_create_us'], 1)} |")
        for key, what in [("count", "`COUNT(1) … FullTextContains(c.text, \"river\")`"),
                          ("rank", "`TOP 10 … ORDER BY RANK FullTextScore(c.text, \"canyon\", \"glacier\")`")]:
            w(f"| {what} | {fmt(text['indexed_' + key + '_us'])} µs, {fmt(text['indexed_' + key + '_ru'], 2)} RU | "
              f"{fmt(text['plain_' + key + '_us'])} µs, {fmt(text['plain_' + key + '_ru'], 2)} RU |")
        if "indexed_rank_statistics_us" in text:
            def sdk(prefix):
                us = text[prefix + "_rank_statistics_us"] + text[prefix + "_rank_component_us"]
                ru = text[prefix + "_rank_statistics_ru"] + text[prefix + "_rank_component_ru"]
                return f"{fmt(us)} µs, {fmt(ru, 2)} RU"
            w(f"| … as the SDKs run it (the hybrid plan's statistics query, then its component query) | "
              f"{sdk('indexed')} | {sdk('plain')} |")
    w("")


def render_query_cost(w, records):
    cost = next(iter(runs_of(records, "query-cost", "query-cost")), None)
    if cost is None:
        return
    w("## Query cost (`bench_query_cost`, in process)")
    w("")
    w("The IoT lesson: one tenant's last day, on a container keyed by tenant and month (in its partition) and on one "
      "keyed by device (every range, as the SDKs send it).")
    w("")
    w("| physical partitions | readings | keyed RU | fanned-out RU | ratio | keyed µs | fanned-out µs | newest first: keyed / fanned-out RU |")
    w("|---:|---:|---:|---:|---:|---:|---:|---|")
    for f in cost.get("iot", []):
        fan_out_ratio = f["fanned_out_ru"] / f["keyed_ru"] if f.get("keyed_ru") else None
        w(f"| {f['physical_partitions']} | {f['readings']} | {fmt(f['keyed_ru'], 2)} | {fmt(f['fanned_out_ru'], 2)} | "
          f"{fmt(fan_out_ratio, 1)} | {fmt(f['keyed_us'])} | {fmt(f['fanned_out_us'])} | "
          f"{fmt(f['newest_first_keyed_ru'], 2)} / {fmt(f['newest_first_fanned_out_ru'], 2)} |")
    w("")
    w("Indexed queries as the container grows (first page of 10; µs median, RU and documents loaded mean):")
    w("")
    w("| documents | `pk = @pk AND n >= @lo` | … `ORDER BY c.n` | `TOP 10 … tag = @t AND n >= @lo ORDER BY c.n` | "
      "`COUNT(1) … tag = @t` index only | the count loading | µs per entry / per document loaded |")
    w("|---:|---|---|---|---|---|---|")
    cell = lambda f, k: f"{fmt(f[k + '_us'])} µs, {fmt(f[k + '_ru'], 2)} RU, {fmt(f[k + '_scanned'], 1)} loaded"  # noqa: E731
    for f in cost.get("sized", []):
        w(f"| {f['documents']} | {cell(f, 'partition_range_first_page')} | {cell(f, 'partition_range_ordered_first_page')} | "
          f"{cell(f, 'equality_range_ordered_top10')} | {fmt(f['count_index_only_us'])} µs, {fmt(f['count_index_only_ru'], 2)} RU | "
          f"{fmt(f['count_loading_us'])} µs, {fmt(f['count_loading_ru'], 2)} RU | "
          f"{fmt(f['us_per_index_entry'], 2)} / {fmt(f['us_per_document_loaded'], 2)} |")
    w("")
    sized = cost.get("sized", [])
    if len(sized) >= 2 and sized[0].get("partition_range_first_page_us"):
        first = sized[0]
        w("Time of the first page against the smallest container: " + "; ".join(
            f"{f['documents']:,} documents: `pk = @pk AND n >= @lo` "
            f"{times_text(ratio(f['partition_range_first_page_us'], first['partition_range_first_page_us']))}, "
            f"… `ORDER BY c.n` "
            f"{times_text(ratio(f['partition_range_ordered_first_page_us'], first['partition_range_ordered_first_page_us']))}"
            for f in sized[1:]) + " (goal: at most ×1.5).")
        w("")
    if sized and "equality_range_sorted_us" in sized[0]:
        w("| documents | `tag = @t AND n` in a tenth of the range `ORDER BY c.id` (intersected: the first page loads every match) | ORDER BY inside a partition: "
          "first page | … a later page |")
        w("|---:|---|---|---|")
        for f in sized:
            w(f"| {f['documents']} | {fmt(f['equality_range_sorted_us'])} µs, {fmt(f['equality_range_sorted_ru'], 2)} RU, "
              f"{fmt(f['equality_range_sorted_scanned'], 1)} loaded | {fmt(f['ordered_first_page_us'])} µs, "
              f"{fmt(f['ordered_first_page_ru'], 2)} RU | page {f['ordered_later_page']}: "
              f"{fmt(f['ordered_later_page_us'])} µs, {fmt(f['ordered_later_page_ru'], 2)} RU, "
              f"{fmt(f['ordered_later_page_scanned'], 1)} loaded |")
        w("")
    if sized and "sum_index_only_us" in sized[0]:
        w("`SELECT VALUE SUM(c.n) FROM c` from the entries of `/n`, beside the same sum loading its documents: " + "; ".join(
              f"{f['documents']:,} documents: {fmt(f['sum_index_only_us'])} µs, {fmt(f['sum_index_only_ru'], 2)} RU "
              f"against {fmt(f['sum_loading_us'])} µs, {fmt(f['sum_loading_ru'], 2)} RU" for f in sized) + ".")
        w("")
    kilobyte = cost.get("one_kilobyte")
    if kilobyte:
        w(f"{kilobyte['documents']:,} documents of 1 KB (20 properties): {fmt(kilobyte['us_per_document_loaded'], 2)} µs "
          f"per document loaded and filtered on two properties (goal: at most 5 µs); "
          f"{fmt(kilobyte['us_per_document_counted'], 2)} µs per document counted without loading it.")
        w("")


def telemetry_verdict(record, rate, seconds):
    if record is None:
        return None
    expected = round(rate * seconds)
    return (record.get("errors", 1) == 0 and record.get("lost", 1) == 0 and record.get("issued") == expected
            and record.get("acknowledged") == expected and record.get("stored") == expected
            and record.get("max_lag_ms", 1e9) <= GOAL_TELEMETRY_MAX_LAG_MS)


def render(info, records, problems, args):
    m = lambda target, workload, key, documents=None: median_of(records, target, workload, key, documents)  # noqa: E731
    out = []
    w = out.append
    w("# cosmolite benchmark results")
    w("")
    w("Generated by `make bench` (`bench/run_bench.py`); do not edit by hand, rerun it. "
      "See `bench/README.md` for what each figure means.")
    w("")
    w(f"- **Date**: {info['date_utc']}; the whole run took {info.get('bench_minutes', '?')} min.")
    w(f"- **Machine**: {info['cores']} cores, {info['cpu_model']}, {info['memory_gib']} GiB, Linux "
      f"{info['kernel']}. Shared and noisy; the load generator runs on the same cores as the server.")
    w(f"- **cosmolite**: revision {info['cosmolite_revision']}, `build/cosmolite --data-dir <tmp>` with "
      f"default flags: durability **WAL + synchronous=NORMAL** (survives a process crash, not a power "
      f"loss), data on {info['data_filesystem']}, {args.server_threads} I/O threads (the default on this "
      f"machine).")
    w(f"- **Peer**: `{PEER_PACKAGE}` {PEER_VERSION} on Node {info['node']}, in memory, HTTPS with keep-alive "
      f"(`bench/start_peer.js`).")
    w(f"- **Load**: `cosmolite_bench`, {args.connections} keep-alive connections on {args.client_threads} client "
      f"thread(s), HTTPS (TLS, certificate not verified) for every HTTP target unless marked plain HTTP; "
      f"each figure is the **median of {args.runs} runs × {args.seconds:g} s** after a {args.warmup:g} s "
      f"warm-up, closed loop. Telemetry: {args.telemetry_rate:,} docs/s offered for "
      f"{args.telemetry_seconds:g} s over {args.telemetry_connections} connections, then counted through "
      f"the read feed. Before each measurement the harness waits for the machine to be quiet (other work "
      f"≤ {args.noise_threshold:g} cores, up to {args.quiet_wait:g} s) and measures again, once, a figure most "
      f"of whose runs shared the CPU with other work. Queries: {args.query_connections} connections, one page "
      f"per request, over {' and '.join(f'{d:,}' for d in args.query_documents)} seeded documents.")
    w("")

    creates = m("cosmolite", "create", "ops_per_s")
    reads = m("cosmolite", "read", "ops_per_s")
    peer_creates = m("peer", "create", "ops_per_s")
    peer_reads = m("peer", "read", "ops_per_s")
    raw_creates = m("raw-beast", "create", "ops_per_s")
    raw_reads = m("raw-beast", "read", "ops_per_s")
    telemetry = next(iter(runs_of(records, "cosmolite", "telemetry")), None)
    ready = m("cosmolite", "startup", "ready_ms")
    idle_rss = m("cosmolite", "startup", "idle_rss_mb")

    def goal_row(name, measured, goal, ok):
        w(f"| {name} | {measured} | {goal} | {verdict(ok)} |")

    w("## Targets")
    w("")
    w("| target | measured | goal | result |")
    w("|---|---|---|---|")
    r = ratio(creates, peer_creates)
    goal_row("point creates vs peer", f"{fmt(r, 2)}× ({fmt(creates)} vs {fmt(peer_creates)} /s)",
             f"≥ {GOAL_CREATES_VS_PEER:g}×", None if r is None else r >= GOAL_CREATES_VS_PEER)
    goal_row("point creates", f"{fmt(creates)} /s", f"≥ {GOAL_CREATES_PER_S:,} /s",
             None if creates is None else creates >= GOAL_CREATES_PER_S)
    r = ratio(reads, peer_reads)
    goal_row("point reads vs peer", f"{fmt(r, 2)}× ({fmt(reads)} vs {fmt(peer_reads)} /s)",
             f"≥ {GOAL_READS_VS_PEER:g}×", None if r is None else r >= GOAL_READS_VS_PEER)
    r = ratio(creates, raw_creates)
    goal_row("point creates vs raw Beast server", f"{fmt(r and r * 100)}% ({fmt(creates)} vs {fmt(raw_creates)} /s)",
             f"≥ {GOAL_VS_RAW_BEAST:.0%}", None if r is None else r >= GOAL_VS_RAW_BEAST)
    r = ratio(reads, raw_reads)
    goal_row("point reads vs raw Beast server", f"{fmt(r and r * 100)}% ({fmt(reads)} vs {fmt(raw_reads)} /s)",
             f"≥ {GOAL_VS_RAW_BEAST:.0%}", None if r is None else r >= GOAL_VS_RAW_BEAST)
    if telemetry and telemetry_verdict(telemetry, args.telemetry_rate, args.telemetry_seconds):
        measured = (f"{args.telemetry_rate:,} /s offered; all {fmt(telemetry.get('stored'))} sent on time (max lag "
                    f"{fmt(telemetry.get('max_lag_ms'))} ms), acknowledged and counted")
    elif telemetry:
        measured = (f"{fmt(telemetry.get('ops_per_s'))} /s achieved; {fmt(telemetry.get('stored'))} of "
                    f"{fmt(round(args.telemetry_rate * args.telemetry_seconds))} stored; max lag "
                    f"{fmt(telemetry.get('max_lag_ms'))} ms")
    else:
        measured = "n/a"
    goal_row(f"telemetry ingest for {args.telemetry_seconds:g} s", measured,
             f"≥ {GOAL_TELEMETRY_PER_S:,} /s sustained, nothing lost",
             telemetry_verdict(telemetry, args.telemetry_rate, args.telemetry_seconds))
    memory_creates = m("cosmolite-memory", "create", "ops_per_s")
    r = ratio(memory_creates, peer_creates)
    goal_row("point creates --in-memory vs peer", f"{fmt(r, 2)}× ({fmt(memory_creates)} vs {fmt(peer_creates)} /s)",
             "≥ 1× (issue 32: at least the fastest peer's)", None if r is None else r >= 1)
    goal_row("start to ready (empty data dir)", f"{fmt(ready, 1)} ms", f"≤ {GOAL_READY_MS} ms",
             None if ready is None else ready <= GOAL_READY_MS)
    goal_row("idle RSS", f"{fmt(idle_rss, 1)} MB", f"≤ {GOAL_IDLE_RSS_MB} MB",
             None if idle_rss is None else idle_rss <= GOAL_IDLE_RSS_MB)
    small, large = 10_000, 100_000
    orderby_small = m("cosmolite", "query-orderby", "ops_per_s", small)
    orderby_large = m("cosmolite", "query-orderby", "ops_per_s", large)
    scaling = ratio(orderby_small, orderby_large)
    peer_orderby_small = m("peer", "query-orderby", "ops_per_s", small)
    r = ratio(orderby_small, peer_orderby_small)
    goal_row(f"cross-partition ORDER BY vs peer, {small:,} documents",
             f"{fmt(r, 0)}× ({fmt(orderby_small, 1)} vs {fmt(peer_orderby_small, 1)} queries/s)",
             f"≥ {GOAL_ORDERBY_VS_PEER}×", None if r is None else r >= GOAL_ORDERBY_VS_PEER)
    goal_row(f"ORDER BY query time, {large:,} ÷ {small:,} documents",
             f"{times_text(scaling)} ({fmt(orderby_small, 1)} vs {fmt(orderby_large, 1)} queries/s)",
             f"≤ {GOAL_ORDERBY_SCALING}×", None if scaling is None else scaling <= GOAL_ORDERBY_SCALING)
    w("")
    w(f"Telemetry passes when all {fmt(round(args.telemetry_rate * args.telemetry_seconds))} scheduled "
      f"documents were sent no more than {GOAL_TELEMETRY_MAX_LAG_MS} ms behind schedule (the server absorbed "
      f"the offered rate), every one was acknowledged with a 2xx, and the read feed counts exactly as many.")
    w("")

    w("## Throughput and latency (medians)")
    w("")
    w("| workload | target | ops/s | runs (ops/s) | p50 ms | p99 ms | server CPU µs/op | server CPU cores "
      "| server RSS MB | errors | client CPU µs/op | other load cores |")
    w("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, target, workload in POINT_ROWS:
        runs = runs_of(records, target, workload)
        if not runs:
            continue
        per_run = " / ".join(fmt(r.get("ops_per_s")) + ("†" if r.get("other_load_cores", 0) > NOISE_THRESHOLD else "")
                             for r in runs)
        errors = sum(r.get("errors", 0) for r in runs)
        client = m(target, workload, "client_cpu_us_per_op")
        w(f"| {name} | {TARGET_NAMES[target]} | {fmt(m(target, workload, 'ops_per_s'))} | {per_run} "
          f"| {fmt(m(target, workload, 'p50_ms'), 2)} | {fmt(m(target, workload, 'p99_ms'), 2)} "
          f"| {fmt(m(target, workload, 'server_cpu_us_per_op'), 1)} "
          f"| {fmt(m(target, workload, 'server_cpu_cores'), 2)} | {fmt(m(target, workload, 'server_rss_mb'), 1)} "
          f"| {errors} | {fmt(client, 1) if target != 'sqlite' else '—'} "
          f"| {fmt(m(target, workload, 'other_load_cores'), 2) if target != 'sqlite' else '—'} |")
    w("")
    w("For raw SQLite the CPU and RSS columns are the loop's own process (it is the whole \"server\"). "
      "Other load = CPU used by other processes plus hypervisor steal during the run, in cores: the machine's "
      f"noise (about 0.05 when nothing else runs). Runs marked † had more than {NOISE_THRESHOLD:g} cores of "
      "other load and are left out of the medians when the same figure has quieter runs.")
    w("")

    w("## Ratios (medians)")
    w("")
    w("| workload | cosmolite ÷ peer | cosmolite ÷ raw Beast server | cosmolite ÷ raw SQLite |")
    w("|---|---:|---:|---:|")
    sqlite_insert = m("sqlite", "insert", "ops_per_s")
    sqlite_select = m("sqlite", "select", "ops_per_s")
    w(f"| point creates | {fmt(ratio(creates, peer_creates), 2)} | {fmt(ratio(creates, raw_creates), 2)} "
      f"| {fmt(ratio(creates, sqlite_insert), 2)} |")
    w(f"| point reads | {fmt(ratio(reads, peer_reads), 2)} | {fmt(ratio(reads, raw_reads), 2)} "
      f"| {fmt(ratio(reads, sqlite_select), 2)} |")
    for workload, what in [("create", "point creates, plain HTTP"), ("read", "point reads, plain HTTP")]:
        plain = m("cosmolite-http", workload, "ops_per_s")
        if plain is not None:
            w(f"| {what} | — | {fmt(ratio(plain, m('raw-beast-http', workload, 'ops_per_s')), 2)} | — |")
    for workload, what in [("create", "point creates, --in-memory"), ("read", "point reads, --in-memory")]:
        in_memory = m("cosmolite-memory", workload, "ops_per_s")
        if in_memory is not None:
            w(f"| {what} | {fmt(ratio(in_memory, m('peer', workload, 'ops_per_s')), 2)} "
              f"| {fmt(ratio(in_memory, m('raw-beast', workload, 'ops_per_s')), 2)} | — |")
    w(f"| upserts | {fmt(ratio(m('cosmolite', 'upsert', 'ops_per_s'), m('peer', 'upsert', 'ops_per_s')), 2)} "
      f"| — | — |")
    peer_telemetry = next(iter(runs_of(records, "peer", "telemetry")), None)
    w(f"| telemetry ingest (achieved docs/s) | "
      f"{fmt(ratio(telemetry and telemetry.get('ops_per_s'), peer_telemetry and peer_telemetry.get('ops_per_s')), 2)}"
      f" | — | — |")
    for documents in args.query_documents:
        for workload, (what, _query) in QUERY_ROWS.items():
            mine = m("cosmolite", workload, "ops_per_s", documents)
            theirs = m("peer", workload, "ops_per_s", documents)
            if mine is not None or theirs is not None:
                w(f"| {what}, {documents:,} documents | {fmt(ratio(mine, theirs), 2)} | — | — |")
    w("")

    render_bulk(w, records, args)
    render_queries(w, records, args)
    render_fanout(w, records, args)
    render_changefeed(w, records, args)
    render_indexing(w, records, args)
    render_writes_beside_scans(w, records, args)
    render_reads_beside_endless(w, records, args)
    render_query_engine(w, records)
    render_scripts(w, records)
    render_query_cost(w, records)
    render_search(w, records)

    w(f"## Telemetry ingest ({args.telemetry_rate:,} docs/s of 300 bytes offered for {args.telemetry_seconds:g} s)")
    w("")
    w("| target | sent | acknowledged | stored (read feed) | lost | errors | achieved docs/s | slowest second "
      "| max lag ms | p50 ms | p99 ms | server CPU µs/op | server RSS MB | count took s | other load cores "
      "| result |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for target in ["cosmolite", "cosmolite-memory", "peer"]:
        t = next(iter(runs_of(records, target, "telemetry")), None)
        if t is None:
            continue
        stored = t.get("stored")
        stored_text = fmt(stored) if stored is not None and stored >= 0 else "not counted (see problems)"
        w(f"| {TARGET_NAMES[target]} | {fmt(t.get('issued'))} | {fmt(t.get('acknowledged'))} "
          f"| {stored_text} | {fmt(t.get('lost'))} | {fmt(t.get('errors'))} | {fmt(t.get('ops_per_s'))} "
          f"| {fmt(t.get('slowest_second_ops'))} | {fmt(t.get('max_lag_ms'))} | {fmt(t.get('p50_ms'), 2)} "
          f"| {fmt(t.get('p99_ms'), 2)} | {fmt(t.get('server_cpu_us_per_op'), 1)} | {fmt(t.get('server_rss_mb'), 1)} "
          f"| {fmt(t.get('count_seconds'), 1)} | {fmt(t.get('other_load_cores'), 2)} "
          f"| {verdict(telemetry_verdict(t, args.telemetry_rate, args.telemetry_seconds))} |")
    w("")
    w("Achieved = acknowledged ÷ time from the first send to the last answer (the generator keeps sending up "
      "to 5 s past the schedule when the server falls behind). Slowest second = answers in the worst "
      "one-second slice of the schedule.")
    w("")

    w("## Start-up and idle memory")
    w("")
    w("| target | start → first 200 (median) | min – max | idle RSS MB (median) | starts |")
    w("|---|---:|---:|---:|---:|")
    for target, what in [("cosmolite", "`GET /ready`, HTTPS, empty data dir (certificate generated)"),
                         ("peer", "`GET /`, HTTPS")]:
        starts = runs_of(records, target, "startup")
        if not starts:
            continue
        times = [s["ready_ms"] for s in starts]
        w(f"| {TARGET_NAMES[target]}: {what} | {fmt(statistics.median(times), 1)} ms "
          f"| {fmt(min(times), 1)} – {fmt(max(times), 1)} ms "
          f"| {fmt(statistics.median(s['idle_rss_mb'] for s in starts), 1)} | {len(starts)} |")
    w("")
    w(f"Spawn → first 200 is timed by the generator (posix_spawn, then polling every millisecond); idle RSS is "
      f"read from /proc/<pid>/status {args.idle_ms} ms after ready.")
    w("")
    if problems:
        w("## Problems during this run")
        w("")
        for problem in problems:
            w(f"- {problem}")
        w("")
    return "\n".join(out)
