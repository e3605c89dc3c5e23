// cosmolite_bench: the benchmark's load generator. Drives one workload (point creates, reads,
// upserts, bulk creates, telemetry ingest, queries) against a running Cosmos DB endpoint over N
// keep-alive connections, signing every request with the master key, and prints one JSON object
// per measured run on stdout (a human line per run on stderr). `--workload startup` instead spawns
// a server command and times spawn -> ready. `--stream` prints each run's line as soon as it ends
// (the soak: hours of 10-second windows); a workload of several kinds of request (mixed) adds
// figures per kind under "operations".
#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>

#include <nlohmann/json.hpp>

#include "bench/load_driver.h"
#include "bench/startup_probe.h"
#include "bench/workloads.h"

namespace {

using cosmos::bench::LoadPlan;
using cosmos::bench::LoadResult;
using cosmos::bench::WindowSummary;

constexpr char kEmulatorKey[] =
    "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

struct Flags {
  std::string host = "127.0.0.1";
  unsigned short port = 8081;
  bool tls = false;
  std::string key = kEmulatorKey;
  std::string label = "target";
  std::string workload = "create";
  int connections = 32;
  int threads = 1;
  double warmup_s = 3;
  double seconds = 10;
  int runs = 3;
  uint64_t requests = 0;
  double rate = 18000;
  double grace_s = 5;
  double request_timeout_s = 120;
  int server_pid = 0;
  bool check = false;
  bool stream = false;
  cosmos::bench::WorkloadOptions workload_options;
  // startup
  int starts = 5;
  int idle_ms = 1000;
  std::string ready_path = "/ready";
  std::vector<std::string> command;
};

std::string RandomTag() {
  std::random_device device;
  char tag[16];
  std::snprintf(tag, sizeof(tag), "b%08x", device());
  return tag;
}

void PrintHuman(const Flags& flags, const std::string& what, const WindowSummary& summary) {
  std::fprintf(stderr,
               "%s %s: %.0f ops/s, p50 %.2f ms, p99 %.2f ms, errors %llu, server %.1f us/op (%.2f cores), "
               "RSS %.1f MB, client %.1f us/op\n",
               flags.label.c_str(), what.c_str(), summary.ops_per_s, summary.p50_ms, summary.p99_ms,
               static_cast<unsigned long long>(summary.errors), summary.server_cpu_us_per_op,
               summary.server_cpu_cores, summary.server_rss_mb, summary.client_cpu_us_per_op);
}

// A request that carries several documents (bulk): the figures per document, so they compare
// with one-document workloads. Called after the window's figures are in `report`.
void AddPerDocumentFigures(nlohmann::json& report) {
  int per_request = report.value("operations_per_request", 0);
  if (per_request <= 1) return;
  auto per_document = [&](const char* key, double factor) {
    double value = report.value(key, -1.0);
    return value < 0 ? -1.0 : std::round(value * factor * 100) / 100;
  };
  report["docs_per_s"] = per_document("ops_per_s", per_request);
  report["server_cpu_us_per_doc"] = per_document("server_cpu_us_per_op", 1.0 / per_request);
  report["client_cpu_us_per_doc"] = per_document("client_cpu_us_per_op", 1.0 / per_request);
  report["charge_per_doc"] = per_document("charge_mean", 1.0 / per_request);
}

void PrintPerDocument(const Flags& flags, const nlohmann::json& report) {
  if (!report.contains("docs_per_s")) return;
  std::fprintf(stderr, "%s %s: %.0f docs/s, server %.2f us/doc, client %.2f us/doc\n", flags.label.c_str(),
               flags.workload.c_str(), report["docs_per_s"].get<double>(),
               report["server_cpu_us_per_doc"].get<double>(), report["client_cpu_us_per_doc"].get<double>());
}

nlohmann::json BaseReport(const Flags& flags) {
  return {{"target", flags.label},
          {"workload", flags.workload},
          {"transport", flags.tls ? "https" : "http"},
          {"connections", flags.connections},
          {"client_threads", flags.threads}};
}

// The figures of one window (edges `from` to `to`) as a report line: the set-up, the whole load's
// figures, per document for bulk, and per kind of request when the workload has several.
nlohmann::json WindowReport(const Flags& flags, const cosmos::bench::Workload& workload, const LoadResult& result,
                            size_t from, size_t to, size_t run, WindowSummary& summary) {
  summary = cosmos::bench::Summarize(result, from, to);
  nlohmann::json report = BaseReport(flags);
  workload.AddSetupFigures(report);
  report["run"] = run;
  report.update(cosmos::bench::ToJson(summary));
  AddPerDocumentFigures(report);
  std::vector<std::string> operations = workload.OperationNames();
  for (size_t operation = 0; operation < operations.size(); ++operation) {
    WindowSummary answers = cosmos::bench::Summarize(result, from, to, static_cast<int>(operation));
    report["operations"][operations[operation]] = cosmos::bench::AnswersToJson(answers);
  }
  return report;
}

// One human line per kind of request: "  create 812/s p50 1.20 p99 6.10 ms".
void PrintOperations(const Flags& flags, const nlohmann::json& report) {
  if (!report.contains("operations")) return;
  std::string line = flags.label + "  ";
  char figures[160];
  for (const auto& [name, answers] : report["operations"].items()) {
    std::snprintf(figures, sizeof(figures), " %s %.0f/s p50 %.2f p99 %.2f ms%s;", name.c_str(),
                  answers["ops_per_s"].get<double>(), answers["p50_ms"].get<double>(),
                  answers["p99_ms"].get<double>(), answers["errors"].get<uint64_t>() > 0 ? " (errors)" : "");
    line += figures;
  }
  std::fprintf(stderr, "%s\n", line.c_str());
}

// Prints a timed run's line (JSON on stdout, human on stderr); returns whether it failed --check.
bool PrintRun(const Flags& flags, const cosmos::bench::Workload& workload, const LoadResult& result, size_t from,
              size_t to, size_t run) {
  WindowSummary summary;
  nlohmann::json report = WindowReport(flags, workload, result, from, to, run, summary);
  std::cout << report.dump() << std::endl;
  PrintHuman(flags, flags.workload + " run " + std::to_string(run), summary);
  PrintPerDocument(flags, report);
  PrintOperations(flags, report);
  return summary.errors > 0 || summary.missing_charge > 0;
}

int RunWorkload(const Flags& flags) {
  auto signer = cosmos::bench::MasterKeySigner::Create(flags.key);
  if (!signer) {
    std::cerr << "--key is not base64\n";
    return 2;
  }
  cosmos::bench::WorkloadOptions options = flags.workload_options;
  if (options.run_tag.empty()) options.run_tag = RandomTag();
  auto workload = cosmos::bench::MakeWorkload(flags.workload, options);
  if (!workload) {
    std::cerr << "unknown workload " << flags.workload << "\n";
    return 2;
  }
  cosmos::bench::Target target{flags.host, flags.port, flags.tls};
  std::unique_ptr<boost::asio::ssl::context> tls_context =
      flags.tls ? cosmos::bench::MakeClientTlsContext() : nullptr;
  cosmos::bench::TargetSession session(
      target, tls_context.get(), *signer,
      std::chrono::milliseconds(static_cast<int64_t>(flags.request_timeout_s * 1000)));
  if (std::string error = workload->Prepare(session); !error.empty()) {
    std::cerr << flags.label << " " << flags.workload << ": prepare failed: " << error << "\n";
    return 1;
  }

  LoadPlan plan;
  plan.connections = flags.connections;
  plan.threads = flags.threads;
  plan.server_pid = flags.server_pid;
  plan.grace_s = flags.grace_s;
  bool open_loop = workload->OpenLoop();
  int runs = flags.runs;
  double warmup_s = flags.warmup_s;
  if (open_loop) {
    plan.rate = flags.rate;
    runs = 1;
    warmup_s = 0;
  }
  if (flags.requests > 0) {
    plan.max_requests = flags.requests;
    runs = 1;
    warmup_s = 0;
  }
  if (flags.requests == 0 || open_loop) {
    if (warmup_s > 0) plan.boundaries_s.push_back(warmup_s);
    for (int run = 1; run <= runs; ++run) plan.boundaries_s.push_back(warmup_s + run * flags.seconds);
  }
  bool failed = false;
  size_t first_window = warmup_s > 0 ? 1 : 0;
  bool timed_runs = !open_loop && flags.requests == 0;
  if (timed_runs && flags.stream) {
    // Each window is reported as it ends; `window` counts them, the warm-up included.
    plan.on_window = [&, window = size_t{0}](const LoadResult& result) mutable {
      if (++window <= first_window) return;  // the warm-up
      failed = PrintRun(flags, *workload, result, 0, 1, window - first_window) || failed;
    };
  }
  cosmos::bench::RequestFactory next = [&workload](uint64_t sequence) { return workload->Next(sequence); };
  LoadResult result = cosmos::bench::RunLoad(target, tls_context.get(), *signer, next, plan);
  if (!result.first_error.empty()) {
    std::cerr << flags.label << " " << flags.workload << ": first transport error: " << result.first_error << "\n";
  }

  size_t windows = result.edges_s.size() - 1;
  if (!timed_runs) {
    // One window from the start to the last answer.
    WindowSummary summary;
    nlohmann::json report = WindowReport(flags, *workload, result, 0, windows, 1, summary);
    report["issued"] = result.issued;
    if (open_loop) {
      report["rate_target"] = flags.rate;
      report["schedule_seconds"] = flags.seconds;
      report["max_lag_ms"] = std::round(result.max_lag_ms * 10) / 10;
      // Answers per one-second slice of the schedule: the slowest second shows stalls.
      std::vector<uint64_t> per_second(static_cast<size_t>(std::ceil(flags.seconds)), 0);
      for (const auto& sample : result.samples) {
        auto second = static_cast<size_t>(sample.done_us / 1000000);
        if (cosmos::bench::Succeeded(sample.status) && second < per_second.size()) ++per_second[second];
      }
      if (!per_second.empty()) {
        report["slowest_second_ops"] = *std::min_element(per_second.begin(), per_second.end());
      }
    }
    std::string verify_error = workload->Verify(session, result, report);
    if (!verify_error.empty()) {
      report["verify_error"] = verify_error;
      std::cerr << flags.label << " " << flags.workload << ": " << verify_error << "\n";
      failed = true;
    }
    std::cout << report.dump() << std::endl;
    PrintHuman(flags, flags.workload, summary);
    PrintPerDocument(flags, report);
    PrintOperations(flags, report);
    if (open_loop) {
      std::fprintf(stderr, "%s %s: offered %.0f/s for %.0f s, acknowledged %s, stored %s, max lag %.1f ms\n",
                   flags.label.c_str(), flags.workload.c_str(), flags.rate, flags.seconds,
                   report.value("acknowledged", nlohmann::json()).dump().c_str(),
                   report.value("stored", nlohmann::json()).dump().c_str(), result.max_lag_ms);
    }
    failed = failed || summary.errors > 0 || summary.missing_charge > 0;
  } else if (!flags.stream) {
    for (size_t window = first_window; window + 1 < result.edges_s.size() && window < first_window + runs;
         ++window) {
      failed = PrintRun(flags, *workload, result, window, window + 1, window - first_window + 1) || failed;
    }
  }
  return flags.check && failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  CLI::App app{"cosmolite_bench: load generator for Cosmos DB (NoSQL API) endpoints"};
  app.add_option("--host", flags.host, "target address")->capture_default_str();
  app.add_option("--port", flags.port, "target port")->capture_default_str();
  app.add_flag("--tls", flags.tls, "HTTPS (certificates are not verified); default plain HTTP");
  app.add_option("--key", flags.key, "account master key (base64)");
  app.add_option("--label", flags.label, "target name written into the JSON")->capture_default_str();
  std::string names = "startup";
  for (const auto& name : cosmos::bench::WorkloadNames()) names += ", " + name;
  app.add_option("--workload", flags.workload, "one of: " + names)->capture_default_str();
  app.add_option("--connections", flags.connections, "keep-alive connections")->capture_default_str()
      ->check(CLI::Range(1, 4096));
  app.add_option("--threads", flags.threads, "client threads")->capture_default_str()->check(CLI::Range(1, 64));
  app.add_option("--warmup", flags.warmup_s, "seconds of load before the first measured run")
      ->capture_default_str();
  app.add_option("--seconds", flags.seconds, "length of each measured run (telemetry: of the schedule)")
      ->capture_default_str();
  app.add_option("--runs", flags.runs, "measured runs, back to back")->capture_default_str()
      ->check(CLI::Range(1, 100000));
  app.add_flag("--stream", flags.stream,
               "print each run's line as soon as it ends and keep only one run's answers in memory (soak)");
  app.add_option("--requests", flags.requests, "send this many requests instead of timed runs (smoke tests)");
  app.add_option("--rate", flags.rate, "telemetry: requests per second offered")->capture_default_str();
  app.add_option("--grace", flags.grace_s, "telemetry: stop issuing this long after the schedule ends")
      ->capture_default_str();
  app.add_option("--setup-timeout", flags.request_timeout_s,
                 "seconds allowed for each set-up or counting request (one read-feed page)")
      ->capture_default_str();
  app.add_option("--server-pid", flags.server_pid, "sample this process's CPU and RSS");
  app.add_flag("--check", flags.check, "exit 1 on any error, missing charge or lost document");
  auto& options = flags.workload_options;
  app.add_option("--database", options.database)->capture_default_str();
  app.add_option("--container", options.container,
                 "default: c (telemetry: telemetry; queries: query-<seed docs>-p<partitions>-b<doc bytes>)");
  app.add_option("--doc-bytes", options.document_bytes, "document size (default 1024, telemetry 300, queries 256)");
  app.add_option("--partitions", options.partitions, "partition-key values of point workloads")
      ->capture_default_str();
  app.add_option("--seed-docs", options.seed_documents, "documents seeded for read/upsert/queries")
      ->capture_default_str();
  app.add_option("--query-page-size", options.query_page_size, "queries: x-ms-max-item-count of each page")
      ->capture_default_str()->check(CLI::Range(1, 1000));
  app.add_option("--tenants", options.tenants, "telemetry tenants")->capture_default_str();
  app.add_option("--count-page-size", options.count_page_size, "x-ms-max-item-count when counting")
      ->capture_default_str();
  app.add_option("--run-tag", options.run_tag, "prefix of new document ids (default random)");
  app.add_option("--indexing-policy", options.indexing_policy,
                 "JSON indexing policy of the containers the workload creates (create, queries); default: the target's");
  app.add_option("--starts", flags.starts, "startup: how many starts")->capture_default_str();
  app.add_option("--idle-ms", flags.idle_ms, "startup: idle pause before reading RSS")->capture_default_str();
  app.add_option("--ready-path", flags.ready_path, "startup: path that answers 200 when ready")
      ->capture_default_str();
  app.add_option("command", flags.command, "startup: server command after --, with {port} and {dir}");
  CLI11_PARSE(app, argc, argv);

  if (flags.workload == "startup") {
    if (flags.command.empty()) {
      std::cerr << "startup needs the server command after --\n";
      return 2;
    }
    cosmos::bench::StartupOptions startup;
    startup.command = flags.command;
    startup.starts = flags.starts;
    startup.idle_ms = flags.idle_ms;
    startup.host = flags.host;
    startup.tls = flags.tls;
    startup.ready_path = flags.ready_path;
    startup.label = flags.label;
    return cosmos::bench::RunStartupProbe(startup);
  }
  try {
    return RunWorkload(flags);
  } catch (const std::exception& error) {
    std::cerr << flags.label << " " << flags.workload << ": " << error.what() << "\n";
    return 1;
  }
}
