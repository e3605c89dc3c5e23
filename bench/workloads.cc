#include "bench/workloads.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>
#include <map>
#include <set>

namespace cosmos::bench {

uint64_t Mix(uint64_t value) {
  value += 0x9E3779B97F4A7C15ULL;
  value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ULL;
  value = (value ^ (value >> 27)) * 0x94D049BB133111EBULL;
  return value ^ (value >> 31);
}

std::string PointPartitionKey(uint64_t index, int partitions) {
  std::string key = "p";  // appended, not "p" + ...: GCC 12 warns falsely (-Wrestrict) on the latter
  key += std::to_string(index % static_cast<uint64_t>(std::max(1, partitions)));
  return key;
}

namespace {

// The properties of a point document besides id, pk and pad: 19 values an IoT reading might carry
// (strings, numbers, a boolean, a nested object, an array), so that with id, pk and pad a document
// has the ~20 indexed properties a write-path comparison assumes (issue 32), not 5. Deterministic
// in n. Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string.
std::string PointFields(uint64_t n) {
  const uint64_t h = Mix(n);
  auto number = [](uint64_t value) { return std::to_string(value); };
  std::string fields = "\"n\":";
  fields += number(n);
  fields += ",\"kind\":\"bench\",\"deviceId\":\"device-";
  fields += number(h % 5000);
  fields += "\",\"tenantId\":\"tenant-";
  fields += number(h % 100);
  fields += "\",\"model\":\"TX-";
  fields += number(h % 12);
  fields += "\",\"firmware\":\"4.";
  fields += number(h % 9);
  fields += ".2\",\"status\":";
  fields += (h & 1) ? "\"ok\"" : "\"warn\"";
  fields += ",\"online\":";
  fields += (h & 2) ? "true" : "false";
  fields += ",\"temperature\":";
  fields += number(15 + h % 20);
  fields += ".";
  fields += number(h % 10);
  fields += ",\"humidity\":";
  fields += number(h % 100);
  fields += ",\"pressure\":";
  fields += number(980 + h % 50);
  fields += ".25,\"battery\":";
  fields += number(h % 101);
  fields += ",\"signal\":-";
  fields += number(40 + h % 60);
  fields += ",\"location\":{\"lat\":47.";
  fields += number(h % 1000);
  fields += ",\"lon\":-122.";
  fields += number((h >> 10) % 1000);
  fields += "},\"tags\":[\"zone-";
  fields += number(h % 7);
  fields += "\",\"line-";
  fields += number(h % 3);
  fields += "\"],\"reading\":{\"unit\":\"C\",\"seq\":";
  fields += number(n);
  fields += "}";
  return fields;
}

// A container's partition key range ids (GET .../pkranges). An error message, empty on success.
std::string ReadPartitionKeyRangeIds(TargetSession& session, const std::string& database,
                                     const std::string& container, std::vector<std::string>& ids) {
  Response ranges = session.Call(ReadPartitionKeyRangesCall(database, container));
  auto body = nlohmann::json::parse(ranges.body(), nullptr, false);
  if (ranges.result_int() != 200 || body.is_discarded() || !body.contains("PartitionKeyRanges")) {
    return "pkranges: " + std::to_string(ranges.result_int()) + " " + ranges.body().substr(0, 300);
  }
  for (const auto& range : body["PartitionKeyRanges"]) ids.push_back(range.value("id", ""));
  return "";
}

// Point creates: each request a new 1 KB document.
class CreateWorkload : public Workload {
 public:
  explicit CreateWorkload(const WorkloadOptions& options) : options_(options) {
    if (options_.container.empty()) options_.container = "c";
    if (options_.document_bytes == 0) options_.document_bytes = 1024;
  }
  std::string Prepare(TargetSession& session) override {
    return session.EnsureContainer(options_.database, options_.container, 0, options_.indexing_policy);
  }
  CosmosCall Next(uint64_t sequence) const override {
    std::string id = options_.run_tag + "-" + std::to_string(sequence);
    std::string pk = PointPartitionKey(sequence, options_.partitions);
    return CreateDocumentCall(options_.database, options_.container,
                              PaddedDocument(id, pk, PointFields(sequence), options_.document_bytes), pk, false);
  }

 private:
  WorkloadOptions options_;
};

// Bulk creates as the Java and .NET SDKs send them: operations grouped per physical partition,
// kOperations to a request (the SDKs' micro-batch size and the service's limit), not atomic,
// continue on error. Request i creates documents 100i .. 100i+99, each the 1 KB document the create
// workload would write for that number, with its own partition key p0 .. p99. The container is
// fresh and has one physical partition, so every request names that range; throughput figures are
// per document (operations_per_request, see load_generator.cc).
class BulkCreateWorkload : public Workload {
 public:
  static constexpr int kOperations = 100;
  explicit BulkCreateWorkload(const WorkloadOptions& options) : options_(options) {
    if (options_.container.empty()) options_.container = "bulk";
    if (options_.document_bytes == 0) options_.document_bytes = 1024;
  }
  std::string Prepare(TargetSession& session) override {
    session.Call(DeleteContainerCall(options_.database, options_.container));  // 404 is fine
    std::string error = session.EnsureContainer(options_.database, options_.container, 0, options_.indexing_policy);
    if (!error.empty()) return error;
    std::vector<std::string> ranges;
    if (error = ReadPartitionKeyRangeIds(session, options_.database, options_.container, ranges); !error.empty()) {
      return error;
    }
    // More ranges would need the SDK's hash of each key to group operations by range; with one, every
    // request goes to it, as an SDK would send it.
    if (ranges.size() != 1) return "expected one partition key range, the target has " + std::to_string(ranges.size());
    range_id_ = ranges.front();
    return "";
  }
  CosmosCall Next(uint64_t sequence) const override {
    std::string operations = "[";
    for (uint64_t n = sequence * kOperations; n < (sequence + 1) * kOperations; ++n) {
      std::string id = options_.run_tag + "-" + std::to_string(n);
      std::string pk = PointPartitionKey(n, options_.partitions);
      if (operations.size() > 1) operations += ',';
      AppendCreateOperation(operations, pk, PaddedDocument(id, pk, PointFields(n), options_.document_bytes));
    }
    operations += ']';
    return BulkCall(options_.database, options_.container, std::move(operations), range_id_);
  }
  // --requests runs only: every document of every fully applied request (200) is in the container.
  std::string Verify(TargetSession& session, const LoadResult& result, nlohmann::json& report) override {
    uint64_t applied = 0;
    bool all_applied = true;
    for (const Sample& sample : result.samples) {
      if (sample.status == 200) applied += kOperations;
      all_applied &= sample.status == 200;
    }
    int pages = 0;
    std::string error;
    int64_t stored = session.CountDocuments(options_.database, options_.container, options_.count_page_size,
                                            &pages, &error);
    report["acknowledged_documents"] = applied;
    report["stored"] = stored;
    if (stored < 0) return "counting failed: " + error;
    if (all_applied && stored != static_cast<int64_t>(applied)) {
      return "stored " + std::to_string(stored) + " of " + std::to_string(applied) + " acknowledged documents";
    }
    return "";
  }
  void AddSetupFigures(nlohmann::json& report) const override {
    report["operations_per_request"] = kOperations;
    report["range_id"] = range_id_;
  }

 private:
  // Appends one Create operation. The SDKs send its partition key as JSON text of the key array.
  // Built by appending: GCC 12 warns falsely (-Wrestrict) on "[" + ... here.
  static void AppendCreateOperation(std::string& out, const std::string& partition_key, const std::string& document) {
    std::string key_array = "[";
    key_array += JsonString(partition_key);
    key_array += ']';
    out += "{\"operationType\":\"Create\",\"partitionKey\":";
    out += JsonString(key_array);
    out += ",\"resourceBody\":";
    out += document;
    out += '}';
  }

  WorkloadOptions options_;
  std::string range_id_ = "0";
};

// Base of the workloads that work on a seeded set of documents seed-0 .. seed-{n-1}; document
// seed-i has "n": i and partition key p{i mod partitions}.
class SeededWorkload : public Workload {
 public:
  explicit SeededWorkload(const WorkloadOptions& options, const std::string& default_container = "c",
                          size_t default_bytes = 1024)
      : options_(options) {
    if (options_.container.empty()) options_.container = default_container;
    if (options_.document_bytes == 0) options_.document_bytes = default_bytes;
    options_.seed_documents = std::max<uint64_t>(1, options_.seed_documents);
  }
  std::string Prepare(TargetSession& session) override {
    std::string error = session.EnsureContainer(options_.database, options_.container);
    if (!error.empty()) return error;
    return Seed(session);
  }

 protected:
  std::string Seed(TargetSession& session) const {
    uint64_t failed = session.Bulk(
        options_.seed_documents, [this](uint64_t index) { return Upsert(index, index); },
        options_.setup_connections);
    if (failed > 0) return std::to_string(failed) + " seed upserts failed";
    return "";
  }
  uint64_t Pick(uint64_t sequence) const { return Mix(sequence) % options_.seed_documents; }
  static std::string SeedId(uint64_t index) { return "seed-" + std::to_string(index); }
  // The properties of seeded document `n` besides its id and partition key.
  virtual std::string SeedFields(uint64_t n) const { return PointFields(n); }
  CosmosCall Upsert(uint64_t index, uint64_t n) const {
    std::string pk = PointPartitionKey(index, options_.partitions);
    return CreateDocumentCall(options_.database, options_.container,
                              PaddedDocument(SeedId(index), pk, SeedFields(n), options_.document_bytes), pk,
                              true);
  }

  WorkloadOptions options_;
};

// Point reads of random seeded documents.
class ReadWorkload : public SeededWorkload {
 public:
  using SeededWorkload::SeededWorkload;
  CosmosCall Next(uint64_t sequence) const override {
    uint64_t index = Pick(sequence);
    return ReadDocumentCall(options_.database, options_.container, SeedId(index),
                            PointPartitionKey(index, options_.partitions));
  }
};

// Upserts that replace random seeded documents.
class UpsertWorkload : public SeededWorkload {
 public:
  using SeededWorkload::SeededWorkload;
  CosmosCall Next(uint64_t sequence) const override { return Upsert(Pick(sequence), sequence); }
};

// Telemetry ingest: 300-byte documents in partitions tenantNNN:yyyymm at a fixed rate into a
// fresh container; afterwards every acknowledged document must be counted in the read feed.
class TelemetryWorkload : public Workload {
 public:
  explicit TelemetryWorkload(const WorkloadOptions& options) : options_(options) {
    if (options_.container.empty()) options_.container = "telemetry";
    if (options_.document_bytes == 0) options_.document_bytes = 300;
    std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char month[16];
    std::snprintf(month, sizeof(month), "%04d%02d", (utc.tm_year + 1900) % 10000, (utc.tm_mon + 1) % 100);
    month_ = month;
  }
  bool OpenLoop() const override { return true; }
  std::string Prepare(TargetSession& session) override {
    session.Call(DeleteContainerCall(options_.database, options_.container));  // 404 is fine
    return session.EnsureContainer(options_.database, options_.container);
  }
  CosmosCall Next(uint64_t sequence) const override {
    uint64_t tenant = sequence % static_cast<uint64_t>(std::max(1, options_.tenants));
    char tenant_name[24];
    std::snprintf(tenant_name, sizeof(tenant_name), "tenant%03llu", static_cast<unsigned long long>(tenant));
    std::string pk = std::string(tenant_name) + ":" + month_;
    std::string id = options_.run_tag + "-" + std::to_string(sequence);
    uint64_t noise = Mix(sequence);
    std::string fields = "\"tenant\":\"" + std::string(tenant_name) + "\",\"device\":\"d" +
                         std::to_string(noise % 1000) + "\",\"metric\":\"cpu\",\"value\":" +
                         std::to_string(noise % 10000) + ",\"seq\":" + std::to_string(sequence);
    return CreateDocumentCall(options_.database, options_.container,
                              PaddedDocument(id, pk, fields, options_.document_bytes), pk, false);
  }
  std::string Verify(TargetSession& session, const LoadResult& result, nlohmann::json& report) override {
    uint64_t acknowledged = 0;
    for (const Sample& sample : result.samples) {
      if (Succeeded(sample.status)) ++acknowledged;
    }
    auto started = std::chrono::steady_clock::now();
    int pages = 0;
    std::string error;
    int64_t stored = session.CountDocuments(options_.database, options_.container, options_.count_page_size,
                                            &pages, &error);
    double count_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    report["acknowledged"] = acknowledged;
    report["stored"] = stored;
    report["count_pages"] = pages;
    report["count_seconds"] = std::round(count_s * 1000) / 1000;
    if (stored < 0) return "counting failed: " + error;
    int64_t lost = static_cast<int64_t>(acknowledged) - stored;
    report["lost"] = lost;
    if (lost != 0) return "stored " + std::to_string(stored) + " of " + std::to_string(acknowledged) + " acknowledged";
    return "";
  }

 private:
  WorkloadOptions options_;
  std::string month_;
};

// Base of the query workloads. They need many documents (10k, 100k), so the container is named
// after the seed (query-<documents>-p<partitions>-b<bytes>-t) and reused when it already holds
// exactly that many: seeding 100k documents takes half a minute or more. Documents are smaller
// than the point workloads' (256 bytes) so a page is about the query, not the payload, and carry
// a tag, "t{n mod 10}", for the equality filters.
// Before the clock starts, the answer to one request is checked, so throughput is only reported
// for a target that answers the query correctly.
class QueryWorkload : public SeededWorkload {
 public:
  // `physical_partitions` > 1: the container is created with 10,000 RU/s per partition (and its
  // name says so), so the target splits it into that many partition key ranges.
  explicit QueryWorkload(const WorkloadOptions& options, int physical_partitions = 1)
      : SeededWorkload(options, ContainerFor(options, physical_partitions), kDocumentBytes),
        physical_partitions_(physical_partitions) {}

  std::string Prepare(TargetSession& session) override {
    auto started = std::chrono::steady_clock::now();
    int64_t throughput = physical_partitions_ > 1 ? int64_t{10000} * physical_partitions_ : 0;
    std::string error = session.EnsureContainer(options_.database, options_.container, throughput,
                                                options_.indexing_policy);
    if (!error.empty()) return error;
    found_documents_ = CountDocuments(session);
    if (found_documents_ != static_cast<int64_t>(options_.seed_documents)) {
      // Upserts: a partly seeded container (an interrupted run) is completed, not duplicated.
      error = Seed(session);
      if (!error.empty()) return error;
      seeded_ = true;
    }
    // After seeding: the change feed's drain must find every document.
    error = PrepareQuery(session);
    if (!error.empty()) return error;
    setup_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return CheckAnswer(session, 0);
  }

  void AddSetupFigures(nlohmann::json& report) const override {
    report["documents"] = options_.seed_documents;
    report["container"] = options_.container;
    report["seeded"] = seeded_;
    report["found_documents"] = found_documents_;
    report["setup_seconds"] = std::round(setup_seconds_ * 10) / 10;
  }

 protected:
  static constexpr size_t kDocumentBytes = 256;
  static constexpr uint64_t kTags = 10;

  // Two short properties and a tag, so that a 256-byte document still has room for padding.
  std::string SeedFields(uint64_t n) const override {
    std::string fields = "\"n\":";
    fields += std::to_string(n);
    fields += ",\"kind\":\"bench\",\"tag\":";
    fields += JsonString(Tag(n));
    return fields;
  }
  static std::string Tag(uint64_t n) { return "t" + std::to_string(n % kTags); }

  // Anything the workload must learn from the target before the clock starts (after seeding).
  virtual std::string PrepareQuery(TargetSession&) { return ""; }

  std::string ReadRangeIds(TargetSession& session, std::vector<std::string>& ids) const {
    return ReadPartitionKeyRangeIds(session, options_.database, options_.container, ids);
  }
  // Checks the answer to request `sequence`: an error message, empty when it is right.
  virtual std::string CheckRows(uint64_t sequence, const nlohmann::json& rows) const = 0;

  // Sends request `sequence` and checks its first page: an error message, empty when right.
  std::string CheckAnswer(TargetSession& session, uint64_t sequence) const {
    Response answer = session.Call(Next(sequence));
    std::string what = "query check: ";
    if (answer.result_int() != 200) {
      return what + std::to_string(answer.result_int()) + " " + answer.body().substr(0, 300);
    }
    auto body = nlohmann::json::parse(answer.body(), nullptr, false);
    if (body.is_discarded() || !body.contains("Documents") || !body["Documents"].is_array()) {
      return what + "no Documents array in " + answer.body().substr(0, 300);
    }
    std::string error = CheckRows(sequence, body["Documents"]);
    return error.empty() ? "" : what + error + " in " + answer.body().substr(0, 300);
  }

  // Checks the first page of a TOP 10 ordered by n whose matches are n = low, low + step, ...
  // below the document count: {id, n} rows of the seeded documents, in that order.
  std::string CheckTopTen(const nlohmann::json& rows, uint64_t low, uint64_t step) const {
    uint64_t matches = (options_.seed_documents - low + step - 1) / step;
    uint64_t expected = std::min<uint64_t>({10, matches, static_cast<uint64_t>(std::max(1, options_.query_page_size))});
    if (rows.size() != expected) return std::to_string(rows.size()) + " rows, expected " + std::to_string(expected);
    for (uint64_t i = 0; i < expected; ++i) {
      uint64_t n = low + i * step;
      if (NumberField(rows[i], "n") != static_cast<int64_t>(n) || rows[i].value("id", "") != SeedId(n)) {
        return "row " + std::to_string(i) + " is " + rows[i].dump().substr(0, 80) + ", expected n " + std::to_string(n);
      }
    }
    return "";
  }

  static int64_t NumberField(const nlohmann::json& row, const char* name) {
    if (!row.is_object() || !row.contains(name) || !row[name].is_number_integer()) return -1;
    return row[name].get<int64_t>();
  }

 private:
  static std::string ContainerFor(const WorkloadOptions& options, int physical_partitions) {
    if (!options.container.empty()) return options.container;
    size_t bytes = options.document_bytes == 0 ? kDocumentBytes : options.document_bytes;
    std::string name = "query-" + std::to_string(std::max<uint64_t>(1, options.seed_documents)) + "-p" +
                       std::to_string(options.partitions) + "-b" + std::to_string(bytes) + "-t";
    if (physical_partitions > 1) name += "-r" + std::to_string(physical_partitions);
    // Another indexing policy is another container (a short, stable tag of the policy text).
    if (!options.indexing_policy.empty()) {
      uint32_t tag = 2166136261u;  // FNV-1a
      for (unsigned char c : options.indexing_policy) tag = (tag ^ c) * 16777619u;
      name += "-i" + std::to_string(tag % 100000);
    }
    return name;
  }

  // The container's documents by SELECT VALUE COUNT(1) (summing pages in case a target returns
  // one partial count per page); -1 when the target cannot say, which means "seed".
  int64_t CountDocuments(TargetSession& session) const {
    int64_t total = 0;
    std::string continuation;
    for (int page = 0; page < 1000; ++page) {
      QueryCallOptions options;
      options.max_item_count = -1;
      options.continuation = continuation;
      Response answer = session.Call(
          QueryDocumentsCall(options_.database, options_.container, "SELECT VALUE COUNT(1) FROM c", {}, options));
      if (answer.result_int() != 200) return -1;
      auto body = nlohmann::json::parse(answer.body(), nullptr, false);
      if (body.is_discarded() || !body.contains("Documents") || !body["Documents"].is_array()) return -1;
      for (const auto& count : body["Documents"]) {
        if (!count.is_number_integer()) return -1;
        total += count.get<int64_t>();
      }
      auto next = answer.find("x-ms-continuation");
      if (next == answer.end() || next->value().empty()) return total;
      continuation = std::string(next->value());
    }
    return -1;
  }

  int physical_partitions_;
  bool seeded_ = false;
  int64_t found_documents_ = -1;
  double setup_seconds_ = 0;
};

// Single-partition queries, one page each:
//   SELECT * FROM c WHERE c.pk = @pk AND c.n >= @lo   (partition-key header, x-ms-max-item-count)
// with @lo a random seeded n and @pk its partition, so each page holds up to --query-page-size
// documents of that partition.
class QuerySingleWorkload : public QueryWorkload {
 public:
  using QueryWorkload::QueryWorkload;
  CosmosCall Next(uint64_t sequence) const override {
    uint64_t low = Pick(sequence);
    QueryCallOptions page;
    page.partition_key_value = PointPartitionKey(low, options_.partitions);
    page.max_item_count = options_.query_page_size;
    return QueryDocumentsCall(options_.database, options_.container,
                              "SELECT * FROM c WHERE c.pk = @pk AND c.n >= @lo",
                              {{"@pk", JsonString(page.partition_key_value)}, {"@lo", std::to_string(low)}}, page);
  }

 protected:
  std::string CheckRows(uint64_t sequence, const nlohmann::json& rows) const override {
    uint64_t low = Pick(sequence);
    auto partitions = static_cast<uint64_t>(std::max(1, options_.partitions));
    // Matches: n = low, low + partitions, ... below the document count.
    uint64_t matches = (options_.seed_documents - low + partitions - 1) / partitions;
    uint64_t expected = std::min<uint64_t>(matches, static_cast<uint64_t>(std::max(1, options_.query_page_size)));
    if (rows.size() != expected) {
      return std::to_string(rows.size()) + " rows, expected " + std::to_string(expected);
    }
    std::string partition = PointPartitionKey(low, options_.partitions);
    for (const auto& row : rows) {
      int64_t n = NumberField(row, "n");
      if (n < static_cast<int64_t>(low) || static_cast<uint64_t>(n) % partitions != low % partitions ||
          row.value("pk", "") != partition) {
        return "row " + row.dump().substr(0, 80) + " does not match";
      }
    }
    return "";
  }
};

// An equality filter across the container, one page:
//   SELECT * FROM c WHERE c.n = @n
// with @n a random seeded n: one match. With the default policy the index names it; with a policy
// that excludes /n/? (--indexing-policy) every document is scanned.
class QueryFilterWorkload : public QueryWorkload {
 public:
  using QueryWorkload::QueryWorkload;
  CosmosCall Next(uint64_t sequence) const override {
    QueryCallOptions page;  // no partition key: cross-partition, served by the gateway
    page.max_item_count = options_.query_page_size;
    return QueryDocumentsCall(options_.database, options_.container, "SELECT * FROM c WHERE c.n = @n",
                              {{"@n", std::to_string(Pick(sequence))}}, page);
  }

 protected:
  std::string CheckRows(uint64_t sequence, const nlohmann::json& rows) const override {
    int64_t n = static_cast<int64_t>(Pick(sequence));
    if (rows.size() != 1 || NumberField(rows[0], "n") != n) {
      return std::to_string(rows.size()) + " rows, expected the one with n = " + std::to_string(n);
    }
    return "";
  }
};

// Cross-partition ORDER BY over the whole container, first page only:
//   SELECT TOP 10 c.id, c.n FROM c WHERE c.n >= @lo ORDER BY c.n
// with @lo a random seeded n, so the target filters and sorts about half the container.
class QueryOrderByWorkload : public QueryWorkload {
 public:
  using QueryWorkload::QueryWorkload;
  CosmosCall Next(uint64_t sequence) const override {
    QueryCallOptions page;  // no partition key: cross-partition
    page.max_item_count = options_.query_page_size;
    return QueryDocumentsCall(options_.database, options_.container,
                              "SELECT TOP 10 c.id, c.n FROM c WHERE c.n >= @lo ORDER BY c.n",
                              {{"@lo", std::to_string(Pick(sequence))}}, page);
  }

 protected:
  std::string CheckRows(uint64_t sequence, const nlohmann::json& rows) const override {
    return CheckTopTen(rows, Pick(sequence), 1);
  }
};

// An equality, a range and an ORDER BY across the container, first page only:
//   SELECT TOP 10 c.id, c.n FROM c WHERE c.tag = @t AND c.n >= @lo ORDER BY c.n
// with @lo a random seeded n and @t its tag: a tenth of the documents carry the tag, about half of
// those are at or above @lo.
class QueryTagOrderByWorkload : public QueryWorkload {
 public:
  using QueryWorkload::QueryWorkload;
  CosmosCall Next(uint64_t sequence) const override {
    uint64_t low = Pick(sequence);
    QueryCallOptions page;  // no partition key: cross-partition
    page.max_item_count = options_.query_page_size;
    return QueryDocumentsCall(options_.database, options_.container,
                              "SELECT TOP 10 c.id, c.n FROM c WHERE c.tag = @t AND c.n >= @lo ORDER BY c.n",
                              {{"@t", JsonString(Tag(low))}, {"@lo", std::to_string(low)}}, page);
  }

 protected:
  std::string CheckRows(uint64_t sequence, const nlohmann::json& rows) const override {
    return CheckTopTen(rows, Pick(sequence), kTags);
  }
};

// A count with one equality filter across the container:
//   SELECT VALUE COUNT(1) FROM c WHERE c.tag = @t
// with @t a random tag: a tenth of the documents.
class QueryCountWorkload : public QueryWorkload {
 public:
  using QueryWorkload::QueryWorkload;
  CosmosCall Next(uint64_t sequence) const override {
    QueryCallOptions page;  // no partition key: cross-partition
    page.max_item_count = options_.query_page_size;
    return QueryDocumentsCall(options_.database, options_.container, "SELECT VALUE COUNT(1) FROM c WHERE c.tag = @t",
                              {{"@t", JsonString(Tag(Pick(sequence)))}}, page);
  }

 protected:
  std::string CheckRows(uint64_t sequence, const nlohmann::json& rows) const override {
    uint64_t tag = Pick(sequence) % kTags;
    uint64_t expected = options_.seed_documents / kTags + (tag < options_.seed_documents % kTags ? 1 : 0);
    if (rows.size() != 1 || !rows[0].is_number_integer() || rows[0].get<uint64_t>() != expected) {
      return "count " + rows.dump().substr(0, 80) + ", expected " + std::to_string(expected);
    }
    return "";
  }
};

// The same cross-partition ORDER BY as an SDK runs it on a container of four physical partitions:
// the gateway answers the query with 400/1004 and the plan, so the SDK sends the plan's rewritten
// query to each range (x-ms-documentdb-partitionkeyrangeid) and merges the sorted pages:
//   SELECT TOP 10 c._rid, [{"item": c.n}] AS orderByItems, {"id": c.id, "n": c.n} AS payload
//   FROM c WHERE ((c.n >= @lo) AND true) ORDER BY c.n
// Each request here is one range's page; request i goes to range i mod 4 with the @lo of query
// i / 4, so one query is four consecutive requests (queries/s = requests/s ÷ 4, RU per query =
// the sum over its four requests).
class QueryFanOutWorkload : public QueryWorkload {
 public:
  static constexpr int kRanges = 4;
  explicit QueryFanOutWorkload(const WorkloadOptions& options) : QueryWorkload(options, kRanges) {}

  CosmosCall Next(uint64_t sequence) const override {
    QueryCallOptions page;
    page.partition_key_range_id = range_ids_.empty() ? "0" : range_ids_[sequence % range_ids_.size()];
    page.max_item_count = options_.query_page_size;
    return QueryDocumentsCall(options_.database, options_.container, rewritten_query_,
                              {{"@lo", std::to_string(Pick(QueryOf(sequence)))}}, page);
  }

  void AddSetupFigures(nlohmann::json& report) const override {
    QueryWorkload::AddSetupFigures(report);
    report["requests_per_query"] = range_ids_.size();
  }

 protected:
  std::string PrepareQuery(TargetSession& session) override {
    if (std::string error = ReadRangeIds(session, range_ids_); !error.empty()) return error;
    if (range_ids_.size() != static_cast<size_t>(kRanges)) {
      return "expected " + std::to_string(kRanges) + " partition key ranges, the target has " +
             std::to_string(range_ids_.size());
    }
    QueryCallOptions plan_options;
    plan_options.query_plan = true;
    Response plan = session.Call(QueryDocumentsCall(options_.database, options_.container, kQuery, {{"@lo", "0"}},
                                                    plan_options));
    auto plan_body = nlohmann::json::parse(plan.body(), nullptr, false);
    if (plan.result_int() != 200 || plan_body.is_discarded() ||
        !plan_body["queryInfo"]["rewrittenQuery"].is_string()) {
      return "query plan: " + std::to_string(plan.result_int()) + " " + plan.body().substr(0, 300);
    }
    rewritten_query_ = plan_body["queryInfo"]["rewrittenQuery"].get<std::string>();
    const std::string placeholder = "{documentdb-formattableorderbyquery-filter}";
    size_t at = rewritten_query_.find(placeholder);
    if (at != std::string::npos) rewritten_query_.replace(at, placeholder.size(), "true");
    return "";
  }

  // A range's page: its rows in ascending n, all >= @lo, each carrying orderByItems and payload.
  std::string CheckRows(uint64_t sequence, const nlohmann::json& rows) const override {
    int64_t low = static_cast<int64_t>(Pick(QueryOf(sequence)));
    int64_t previous = low;
    if (rows.size() > 10) return std::to_string(rows.size()) + " rows from one range, expected at most 10";
    for (const auto& row : rows) {
      int64_t n = row.contains("payload") ? NumberField(row["payload"], "n") : -1;
      if (n < previous || !row.contains("orderByItems") || row["orderByItems"][0].value("item", -1) != n) {
        return "row " + row.dump().substr(0, 120) + " is out of order or not in the ORDER BY shape";
      }
      previous = n;
    }
    return "";
  }

 private:
  static constexpr char kQuery[] = "SELECT TOP 10 c.id, c.n FROM c WHERE c.n >= @lo ORDER BY c.n";
  static uint64_t QueryOf(uint64_t sequence) { return sequence / kRanges; }

  std::vector<std::string> range_ids_;
  std::string rewritten_query_;
};

// The change feed of the seeded four-range query container. Before the clock, one consumer drains
// the whole feed from the beginning, range by range, 1,000 items a page, and must see every seeded
// document exactly once: its rate is drain_items_per_s. The timed load then reads pages of 1,000
// from random points of the feed (request i: range i mod 4, after a random LSN below the seed
// count), so items/s = requests/s × items per page.
class ChangeFeedWorkload : public QueryWorkload {
 public:
  static constexpr int kRanges = 4;
  static constexpr int kPageItems = 1000;
  explicit ChangeFeedWorkload(const WorkloadOptions& options) : QueryWorkload(options, kRanges) {}

  CosmosCall Next(uint64_t sequence) const override {
    const std::string& range = range_ids_.empty() ? kFirstRange : range_ids_[sequence % range_ids_.size()];
    std::string etag = "\"";
    etag += std::to_string(Pick(sequence / kRanges));
    etag += '"';
    return ChangeFeedCall(options_.database, options_.container, range, etag, kPageItems);
  }

  void AddSetupFigures(nlohmann::json& report) const override {
    QueryWorkload::AddSetupFigures(report);
    report["drained"] = drained_;
    report["drain_seconds"] = std::round(drain_seconds_ * 1000) / 1000;
    report["drain_items_per_s"] = drain_seconds_ > 0 ? std::round(drained_ / drain_seconds_) : 0;
    report["page_items"] = kPageItems;
  }

 protected:
  std::string PrepareQuery(TargetSession& session) override {
    if (std::string error = ReadRangeIds(session, range_ids_); !error.empty()) return error;
    return Drain(session);
  }

  // A change-feed page: items in ascending _lsn, each above the requested LSN.
  std::string CheckRows(uint64_t sequence, const nlohmann::json& rows) const override {
    int64_t previous = static_cast<int64_t>(Pick(sequence / kRanges));
    for (const auto& row : rows) {
      int64_t lsn = NumberField(row, "_lsn");
      if (lsn <= previous) return "item " + row.dump().substr(0, 120) + " is not after LSN " + std::to_string(previous);
      previous = lsn;
    }
    return "";
  }

 private:
  static inline const std::string kFirstRange = "0";

  // Reads every range from the beginning until 304, counting items and distinct ids.
  std::string Drain(TargetSession& session) {
    auto started = std::chrono::steady_clock::now();
    std::set<std::string> ids;
    for (const std::string& range : range_ids_) {
      std::string etag;
      for (int page = 0;; ++page) {
        if (page > 100000) return "the change feed of range " + range + " never ends";
        Response answer = session.Call(ChangeFeedCall(options_.database, options_.container, range, etag, kPageItems));
        if (answer.result_int() == 304) break;
        auto body = nlohmann::json::parse(answer.body(), nullptr, false);
        if (answer.result_int() != 200 || body.is_discarded() || !body.contains("Documents")) {
          return "change feed: " + std::to_string(answer.result_int()) + " " + answer.body().substr(0, 300);
        }
        for (const auto& item : body["Documents"]) {
          ++drained_;
          ids.insert(item.value("id", ""));
        }
        auto next = answer.find("etag");
        if (next == answer.end()) return "a change-feed page without an etag";
        etag = std::string(next->value());
      }
    }
    drain_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (drained_ != static_cast<int64_t>(options_.seed_documents) || ids.size() != options_.seed_documents) {
      return "the change feed returned " + std::to_string(drained_) + " items (" + std::to_string(ids.size()) +
             " distinct) for " + std::to_string(options_.seed_documents) + " documents";
    }
    return "";
  }

  std::vector<std::string> range_ids_;
  int64_t drained_ = 0;
  double drain_seconds_ = 0;
};

// A pathological query, over and over: COUNT(1) over a triple JOIN of one document's array of
// 1,000 numbers, a billion rows that cannot end their page early. The server abandons each at
// --query-time-limit with 408 (counted as errors here); the figure that matters is what other
// requests get meanwhile (run_bench.py: reads beside endless queries).
class EndlessQueryWorkload : public Workload {
 public:
  explicit EndlessQueryWorkload(const WorkloadOptions& options) : options_(options) {
    if (options_.container.empty()) options_.container = "endless";
  }
  std::string Prepare(TargetSession& session) override {
    std::string error = session.EnsureContainer(options_.database, options_.container);
    if (!error.empty()) return error;
    nlohmann::json document = {{"id", "big"}, {"pk", "p"}, {"arr", nlohmann::json::array()}};
    for (int i = 0; i < 1000; ++i) document["arr"].push_back(i);
    Response answer = session.Call(CreateDocumentCall(options_.database, options_.container, document.dump(), "p", true));
    if (answer.result_int() / 100 != 2) return "seeding the endless query's document: " + std::to_string(answer.result_int());
    return "";
  }
  CosmosCall Next(uint64_t) const override {
    QueryCallOptions page;
    page.partition_key_value = "p";
    return QueryDocumentsCall(options_.database, options_.container,
                              "SELECT VALUE COUNT(1) FROM c JOIN a IN c.arr JOIN b IN c.arr JOIN d IN c.arr", {}, page);
  }

 private:
  WorkloadOptions options_;
};

using Factory = std::function<std::unique_ptr<Workload>(const WorkloadOptions&)>;

const std::map<std::string, Factory>& Registry() {
  static const auto* registry = new std::map<std::string, Factory>{
      {"create", [](const WorkloadOptions& o) { return std::make_unique<CreateWorkload>(o); }},
      {"bulk-create", [](const WorkloadOptions& o) { return std::make_unique<BulkCreateWorkload>(o); }},
      {"read", [](const WorkloadOptions& o) { return std::make_unique<ReadWorkload>(o); }},
      {"upsert", [](const WorkloadOptions& o) { return std::make_unique<UpsertWorkload>(o); }},
      {"telemetry", [](const WorkloadOptions& o) { return std::make_unique<TelemetryWorkload>(o); }},
      {"query-single", [](const WorkloadOptions& o) { return std::make_unique<QuerySingleWorkload>(o); }},
      {"query-orderby", [](const WorkloadOptions& o) { return std::make_unique<QueryOrderByWorkload>(o); }},
      {"query-fanout", [](const WorkloadOptions& o) { return std::make_unique<QueryFanOutWorkload>(o); }},
      {"query-filter", [](const WorkloadOptions& o) { return std::make_unique<QueryFilterWorkload>(o); }},
      {"query-tag-orderby", [](const WorkloadOptions& o) { return std::make_unique<QueryTagOrderByWorkload>(o); }},
      {"query-count", [](const WorkloadOptions& o) { return std::make_unique<QueryCountWorkload>(o); }},
      {"changefeed", [](const WorkloadOptions& o) { return std::make_unique<ChangeFeedWorkload>(o); }},
      {"mixed", MakeMixedWorkload},
      {"query-endless", [](const WorkloadOptions& o) { return std::make_unique<EndlessQueryWorkload>(o); }},
  };
  return *registry;
}

}  // namespace

std::string Workload::Verify(TargetSession&, const LoadResult&, nlohmann::json&) { return ""; }

void Workload::AddSetupFigures(nlohmann::json&) const {}

std::unique_ptr<Workload> MakeWorkload(const std::string& name, const WorkloadOptions& options) {
  auto found = Registry().find(name);
  if (found == Registry().end()) return nullptr;
  return found->second(options);
}

std::vector<std::string> WorkloadNames() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : Registry()) names.push_back(name);
  return names;
}

std::string PaddedDocument(const std::string& id, const std::string& partition_key, const std::string& fields,
                           size_t bytes) {
  std::string head = "{\"id\":" + JsonString(id) + ",\"pk\":" + JsonString(partition_key) + "," + fields +
                     ",\"pad\":\"";
  std::string tail = "\"}";
  size_t fixed = head.size() + tail.size();
  size_t pad = bytes > fixed ? bytes - fixed : 0;
  std::string document;
  document.reserve(fixed + pad);
  document += head;
  static const std::string* pattern = [] {
    auto* text = new std::string();
    for (size_t i = 0; i < 64 * 1024; ++i) text->push_back(static_cast<char>('a' + (i * 7) % 26));
    return text;
  }();
  while (pad > 0) {
    size_t piece = std::min(pad, pattern->size());
    document.append(*pattern, 0, piece);
    pad -= piece;
  }
  document += tail;
  return document;
}

TargetSession::TargetSession(const Target& target, net::ssl::context* tls_context, const MasterKeySigner& signer,
                             std::chrono::milliseconds timeout)
    : target_(target), tls_context_(tls_context), signer_(signer), client_(target, tls_context, timeout) {}

Response TargetSession::Call(const CosmosCall& call) {
  Response response;
  beast::error_code ec = client_.Send(BuildRequest(call, signer_, date_.Now(), target_.HostHeader()), response);
  if (ec) {
    response = Response(http::status::unknown, 11);
    response.result(0);
    response.body() = ec.message();
  }
  return response;
}

uint64_t TargetSession::Bulk(uint64_t count, const RequestFactory& next, int connections) {
  if (count == 0) return 0;
  LoadPlan plan;
  plan.connections = std::max(1, connections);
  plan.threads = 1;
  plan.max_requests = count;
  LoadResult result = RunLoad(target_, tls_context_, signer_, next, plan);
  uint64_t ok = 0;
  for (const Sample& sample : result.samples) {
    if (Succeeded(sample.status)) ++ok;
  }
  return count - ok;
}

std::string TargetSession::EnsureContainer(const std::string& database, const std::string& container,
                                           int64_t throughput, const std::string& indexing_policy) {
  Response db = Call(CreateDatabaseCall(database));
  if (db.result_int() != 201 && db.result_int() != 409 && db.result_int() / 100 != 2) {
    return "create database: " + std::to_string(db.result_int()) + " " + db.body();
  }
  Response coll = Call(CreateContainerCall(database, container, "/pk", throughput, indexing_policy));
  if (coll.result_int() != 201 && coll.result_int() != 409 && coll.result_int() / 100 != 2) {
    return "create container: " + std::to_string(coll.result_int()) + " " + coll.body();
  }
  return "";
}

int64_t TargetSession::CountDocuments(const std::string& database, const std::string& container, int page_size,
                                      int* pages, std::string* error) {
  int64_t total = 0;
  std::string continuation;
  *pages = 0;
  while (true) {
    Response page = Call(ReadFeedCall(database, container, page_size, continuation));
    ++*pages;
    if (page.result_int() != 200) {
      *error = "read feed page " + std::to_string(*pages) + ": " + std::to_string(page.result_int()) + " " +
               page.body().substr(0, 300);
      return -1;
    }
    auto body = nlohmann::json::parse(page.body(), nullptr, false);
    if (body.is_discarded() || !body.contains("_count") || !body["_count"].is_number_integer()) {
      *error = "read feed page " + std::to_string(*pages) + " has no _count";
      return -1;
    }
    total += body["_count"].get<int64_t>();
    auto next = page.find("x-ms-continuation");
    if (next == page.end() || next->value().empty()) return total;
    continuation = std::string(next->value());
  }
}

}  // namespace cosmos::bench
