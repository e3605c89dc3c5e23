// Drives requests over N keep-alive connections on T client threads, either closed loop (each
// connection sends its next request as soon as the previous one is answered) or open loop at a
// fixed rate (request k is due at start + k / rate: a free connection waits for its due time; a
// late one sends at once and the lag is recorded). The server's and this process's CPU time and
// RSS are sampled at every window boundary, so a load can be cut into warm-up and measured runs;
// a long load (a soak) can have each window handed out as it ends (LoadPlan::on_window).
// Thread-safety: RunLoad blocks the caller; the RequestFactory is called concurrently from the
// client threads and must be thread-safe.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/cosmos_request.h"
#include "bench/http_client.h"
#include "bench/process_stats.h"
#include "bench/signing.h"

namespace cosmos::bench {

// The request numbered `sequence` (0, 1, 2, ... across all connections).
using RequestFactory = std::function<CosmosCall(uint64_t sequence)>;

struct LoadResult;

struct LoadPlan {
  int connections = 32;
  int threads = 1;
  double rate = 0;  // requests per second; 0: closed loop
  // Window edges in seconds from the start, ascending; the last one ends the schedule.
  // Empty: the load ends after max_requests.
  std::vector<double> boundaries_s;
  uint64_t max_requests = 0;  // > 0: send at most this many
  double grace_s = 5;         // open loop: issue nothing later than this past the schedule's end
  pid_t server_pid = 0;       // 0: do not sample a server
  // Optional: called on the caller's thread at each boundary with the answers that arrived since
  // the previous one, as a LoadResult whose two edges are the window's (Summarize(window, 0, 1)).
  // Those answers are then dropped, so a load of hours holds one window in memory and its figures
  // can be printed while it runs; RunLoad's result keeps only the answers after the last boundary.
  std::function<void(const LoadResult& window)> on_window;
};

struct Sample {
  int64_t done_us = 0;      // when the answer arrived, since the start
  uint32_t latency_us = 0;  // request written to answer read
  uint16_t status = 0;      // HTTP status; 0: transport error
  float charge = -1;        // x-ms-request-charge; -1: header missing
  uint8_t operation = 0;    // CosmosCall::operation of the request
};

// An answer that did all it was asked: a 2xx other than 207 (Multi-Status: some operations of a
// bulk request failed, so the request counts as an error).
inline bool Succeeded(uint16_t status) { return status >= 200 && status < 300 && status != 207; }

struct LoadResult {
  std::vector<Sample> samples;  // in no particular order
  // Edges in seconds: 0, the plan's boundaries, then the moment the last answer arrived.
  std::vector<double> edges_s;
  std::vector<ProcessSample> server_at;  // one per edge
  std::vector<ProcessSample> client_at;  // one per edge
  std::vector<MachineSample> machine_at;  // one per edge
  uint64_t issued = 0;
  double max_lag_ms = 0;    // open loop: the latest a request was sent after its due time
  std::string first_error;  // first transport error, for the log
};

LoadResult RunLoad(const Target& target, net::ssl::context* tls_context, const MasterKeySigner& signer,
                   const RequestFactory& next, const LoadPlan& plan);

// Every kind of request (Summarize's `operation`).
inline constexpr int kAllOperations = -1;

// Figures for the answers that arrived between edges `from` and `to` of a load.
struct WindowSummary {
  double seconds = 0;
  uint64_t ok = 0;      // Succeeded() answers
  uint64_t errors = 0;  // everything else, transport errors included
  std::map<int, uint64_t> error_statuses;  // status (0: transport) -> count
  double ops_per_s = 0;                    // ok / seconds
  double p50_ms = 0;
  double p99_ms = 0;
  double mean_ms = 0;
  double charge_mean = 0;
  uint64_t missing_charge = 0;         // answers without x-ms-request-charge
  double server_cpu_us_per_op = -1;    // -1: not sampled
  double server_cpu_cores = -1;        // server CPU seconds per wall second
  double server_rss_mb = -1;           // at the window's end
  double client_cpu_us_per_op = -1;
  // CPU used by everything but the server and this client, plus hypervisor steal, in cores: the
  // noise from other work on a shared machine.
  double other_load_cores = -1;
};

// With `operation`, only the answers to that kind of request (CosmosCall::operation) count, and the
// process figures (CPU, RSS, other load), which belong to the whole load, stay unsampled (-1).
WindowSummary Summarize(const LoadResult& result, size_t from, size_t to, int operation = kAllOperations);
nlohmann::json ToJson(const WindowSummary& summary);
// The answers' figures alone (ok, errors, rate, latency, charge): one operation's entry in a report.
nlohmann::json AnswersToJson(const WindowSummary& summary);

}  // namespace cosmos::bench
