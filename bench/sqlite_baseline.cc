// bench_sqlite: the storage baseline. A raw SQLite loop on cosmolite's document schema
// (documents(seq INTEGER PRIMARY KEY AUTOINCREMENT, container_seq, partition_key, id, body, etag,
// lsn) with a unique index on (container_seq, partition_key, id)), WAL with synchronous=NORMAL:
// first inserts of 1 KB bodies, one transaction each, then point selects by key. No HTTP, no
// JSON parsing, one thread: what the storage alone costs. Prints one JSON object per measured run
// on stdout, in the load generator's format (the "server" figures are this process's own).
#include <sqlite3.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/process_stats.h"
#include "storage/schema.h"

namespace {

using Clock = std::chrono::steady_clock;
using cosmos::bench::MachineSample;
using cosmos::bench::ProcessSample;
using cosmos::bench::SampleMachine;
using cosmos::bench::SampleProcess;

class Database {
 public:
  explicit Database(const std::string& path) {
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) Fail("open");
    Exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
    Exec(cosmos::storage::kSchemaSql);  // cosmolite's own schema
  }
  ~Database() {
    for (sqlite3_stmt* statement : statements_) sqlite3_finalize(statement);
    sqlite3_close(db_);
  }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void Exec(const char* sql) {
    if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) Fail(sql);
  }
  sqlite3_stmt* Prepare(const char* sql) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, nullptr) != SQLITE_OK) Fail(sql);
    statements_.push_back(statement);
    return statement;
  }
  [[noreturn]] void Fail(const std::string& what) {
    std::cerr << "sqlite: " << what << ": " << sqlite3_errmsg(db_) << "\n";
    std::exit(1);
  }

 private:
  sqlite3* db_ = nullptr;
  std::vector<sqlite3_stmt*> statements_;
};

std::string PartitionKey(uint64_t n) { return "[\"p" + std::to_string(n % 100) + "\"]"; }
std::string Id(uint64_t n) { return "d-" + std::to_string(n); }

std::string Body(uint64_t n, size_t bytes) {
  std::string body = "{\"id\":\"" + Id(n) + "\",\"pk\":\"p" + std::to_string(n % 100) + "\",\"n\":" +
                     std::to_string(n) + ",\"pad\":\"";
  while (body.size() + 2 < bytes) body += static_cast<char>('a' + body.size() % 26);
  return body + "\"}";
}

struct Window {
  uint64_t ops = 0;
  std::vector<uint32_t> latencies_us;
};

// Runs `op(n)` back to back for the warm-up and each run; prints one JSON line per run.
void Measure(const std::string& workload, double warmup_s, double seconds, int runs,
             const std::function<void(uint64_t)>& op) {
  uint64_t n = 0;
  auto run_for = [&](double length_s, Window* window) {
    auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(length_s));
    for (Clock::time_point now = Clock::now(); now < end;) {
      op(n++);
      Clock::time_point done = Clock::now();
      if (window != nullptr) {
        ++window->ops;
        window->latencies_us.push_back(
            static_cast<uint32_t>(std::chrono::duration_cast<std::chrono::microseconds>(done - now).count()));
      }
      now = done;
    }
  };
  run_for(warmup_s, nullptr);
  for (int run = 1; run <= runs; ++run) {
    Window window;
    ProcessSample before = SampleProcess(getpid());
    MachineSample machine_before = SampleMachine();
    auto started = Clock::now();
    run_for(seconds, &window);
    double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
    ProcessSample after = SampleProcess(getpid());
    MachineSample machine_after = SampleMachine();
    // Everything else on the machine (other processes, hypervisor steal), in cores.
    double other_load = (machine_after.busy_seconds - machine_before.busy_seconds + machine_after.steal_seconds -
                         machine_before.steal_seconds - (after.cpu_seconds - before.cpu_seconds)) / elapsed;
    double mean_ms = 0;
    for (uint32_t latency : window.latencies_us) mean_ms += latency;
    mean_ms = window.ops ? mean_ms / static_cast<double>(window.ops) / 1000.0 : 0;
    double p50 = cosmos::bench::Quantile(window.latencies_us, 0.5) / 1000.0;
    double p99 = cosmos::bench::Quantile(window.latencies_us, 0.99) / 1000.0;
    double ops_per_s = static_cast<double>(window.ops) / elapsed;
    double cpu_us = (after.cpu_seconds - before.cpu_seconds) * 1e6 / static_cast<double>(std::max<uint64_t>(1, window.ops));
    auto round = [](double value, double unit) { return std::round(value / unit) / (1 / unit); };
    nlohmann::json line = {{"target", "sqlite"},
                           {"workload", workload},
                           {"transport", "none"},
                           {"run", run},
                           {"seconds", round(elapsed, 0.001)},
                           {"ok", window.ops},
                           {"errors", 0},
                           {"ops_per_s", round(ops_per_s, 0.1)},
                           {"p50_ms", round(p50, 0.001)},
                           {"p99_ms", round(p99, 0.001)},
                           {"mean_ms", round(mean_ms, 0.001)},
                           {"server_cpu_us_per_op", round(cpu_us, 0.1)},
                           {"server_cpu_cores", round((after.cpu_seconds - before.cpu_seconds) / elapsed, 0.001)},
                           {"server_rss_mb", round(after.rss_mb, 0.1)},
                           {"other_load_cores", round(std::max(0.0, other_load), 0.01)}};
    std::cout << line.dump() << std::endl;
    std::fprintf(stderr, "sqlite %s run %d: %.0f ops/s, p50 %.3f ms, p99 %.3f ms, %.1f us CPU/op, RSS %.1f MB\n",
                 workload.c_str(), run, ops_per_s, p50, p99, cpu_us, after.rss_mb);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  double warmup_s = 3;
  double seconds = 10;
  int runs = 3;
  size_t document_bytes = 1024;
  uint64_t select_set = 10000;
  CLI::App app{"bench_sqlite: raw SQLite insert and point-select loops on cosmolite's document schema"};
  app.add_option("--db", path, "database file (created)")->required();
  app.add_option("--warmup", warmup_s)->capture_default_str();
  app.add_option("--seconds", seconds)->capture_default_str();
  app.add_option("--runs", runs)->capture_default_str();
  app.add_option("--doc-bytes", document_bytes)->capture_default_str();
  app.add_option("--select-set", select_set, "selects pick among the first N inserted documents")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  Database db(path);
  sqlite3_stmt* begin = db.Prepare("BEGIN IMMEDIATE");
  sqlite3_stmt* commit = db.Prepare("COMMIT");
  sqlite3_stmt* insert = db.Prepare(
      "INSERT INTO documents(container_seq, partition_key, id, body, etag, lsn) VALUES (1, ?1, ?2, ?3, ?4, ?5)");
  sqlite3_stmt* select = db.Prepare(
      "SELECT body, etag, lsn FROM documents WHERE container_seq = 1 AND partition_key = ?1 AND id = ?2");

  auto step_done = [&](sqlite3_stmt* statement, int expected) {
    if (sqlite3_step(statement) != expected) db.Fail("step");
    sqlite3_reset(statement);
  };
  uint64_t inserted = 0;
  Measure("insert", warmup_s, seconds, runs, [&](uint64_t n) {
    std::string pk = PartitionKey(n);
    std::string id = Id(n);
    std::string body = Body(n, document_bytes);
    std::string etag = "\"" + std::to_string(n) + "\"";
    step_done(begin, SQLITE_DONE);
    sqlite3_bind_text(insert, 1, pk.data(), static_cast<int>(pk.size()), SQLITE_STATIC);
    sqlite3_bind_text(insert, 2, id.data(), static_cast<int>(id.size()), SQLITE_STATIC);
    sqlite3_bind_text(insert, 3, body.data(), static_cast<int>(body.size()), SQLITE_STATIC);
    sqlite3_bind_text(insert, 4, etag.data(), static_cast<int>(etag.size()), SQLITE_STATIC);
    sqlite3_bind_int64(insert, 5, static_cast<sqlite3_int64>(n + 1));
    step_done(insert, SQLITE_DONE);
    step_done(commit, SQLITE_DONE);
    inserted = n + 1;
  });

  uint64_t pool = std::max<uint64_t>(1, std::min(select_set, inserted));
  uint64_t state = 88172645463325252ULL;
  Measure("select", warmup_s, seconds, runs, [&](uint64_t) {
    state ^= state << 13;  // xorshift64
    state ^= state >> 7;
    state ^= state << 17;
    uint64_t n = state % pool;
    std::string pk = PartitionKey(n);
    std::string id = Id(n);
    sqlite3_bind_text(select, 1, pk.data(), static_cast<int>(pk.size()), SQLITE_STATIC);
    sqlite3_bind_text(select, 2, id.data(), static_cast<int>(id.size()), SQLITE_STATIC);
    if (sqlite3_step(select) != SQLITE_ROW) db.Fail("select found nothing");
    volatile size_t size = static_cast<size_t>(sqlite3_column_bytes(select, 0));
    (void)size;
    sqlite3_reset(select);
  });
  return 0;
}
