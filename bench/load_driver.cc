#include "bench/load_driver.h"

#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

namespace cosmos::bench {
namespace {

using Clock = std::chrono::steady_clock;

class LoadRun {
 public:
  LoadRun(const Target& target, net::ssl::context* tls_context, const MasterKeySigner& signer,
          const RequestFactory& next, const LoadPlan& plan)
      : signer_(signer), next_(next), plan_(plan), host_header_(target.HostHeader()) {
    tcp::endpoint endpoint = ResolveTarget(target);
    int threads = std::max(1, std::min(plan.threads, plan.connections));
    for (int i = 0; i < threads; ++i) threads_.push_back(std::make_unique<ThreadState>());
    for (int i = 0; i < plan.connections; ++i) {
      ThreadState& thread = *threads_[static_cast<size_t>(i % threads)];
      thread.workers.push_back(std::make_unique<Worker>(thread.io, endpoint, tls_context));
    }
  }

  LoadResult Run() {
    LoadResult result;
    start_ = Clock::now();
    if (!plan_.boundaries_s.empty()) {
      schedule_end_ = start_ + ToDuration(plan_.boundaries_s.back());
    }
    Snapshot(result, 0);
    for (auto& thread : threads_) {
      for (auto& worker : thread->workers) {
        net::post(thread->io, [this, state = thread.get(), w = worker.get()] { Issue(*state, *w); });
      }
    }
    std::vector<std::thread> runners;
    for (auto& thread : threads_) {
      runners.emplace_back([state = thread.get()] { state->io.run(); });
    }
    for (double edge : plan_.boundaries_s) {
      std::this_thread::sleep_until(start_ + ToDuration(edge));
      Snapshot(result, edge);
      if (plan_.on_window) HandOutWindow(result);
    }
    for (auto& runner : runners) runner.join();

    int64_t last_us = 0;
    for (const Sample& sample : carried_) last_us = std::max(last_us, sample.done_us);
    result.samples = std::move(carried_);
    for (auto& thread : threads_) {
      for (auto& worker : thread->workers) worker->connection.Close();
      for (const Sample& sample : thread->samples) last_us = std::max(last_us, sample.done_us);
      result.samples.insert(result.samples.end(), thread->samples.begin(), thread->samples.end());
      result.max_lag_ms = std::max(result.max_lag_ms, thread->max_lag_ms);
      if (result.first_error.empty()) result.first_error = thread->first_error;
    }
    double last_s = static_cast<double>(last_us) / 1e6;
    double end_s = plan_.boundaries_s.empty() ? last_s : std::max(last_s, plan_.boundaries_s.back());
    Snapshot(result, end_s);
    result.issued = std::min<uint64_t>(sent_.load(), plan_.max_requests ? plan_.max_requests : UINT64_MAX);
    return result;
  }

 private:
  struct Worker {
    Worker(net::io_context& io, tcp::endpoint endpoint, net::ssl::context* tls_context)
        : connection(io, endpoint, tls_context), timer(io) {}
    AsyncConnection connection;
    net::steady_timer timer;
  };

  struct ThreadState {
    net::io_context io{1};
    std::vector<std::unique_ptr<Worker>> workers;
    std::mutex samples_mutex;  // the caller's thread takes the samples at each edge (on_window)
    std::vector<Sample> samples;
    DateClock date;
    double max_lag_ms = 0;
    std::string first_error;
  };

  static Clock::duration ToDuration(double seconds) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  }

  void Snapshot(LoadResult& result, double edge_s) {
    result.edges_s.push_back(edge_s);
    result.server_at.push_back(SampleProcess(plan_.server_pid));
    result.client_at.push_back(SampleProcess(getpid()));
    result.machine_at.push_back(SampleMachine());
  }

  // Takes the answers that arrived up to the newest edge out of the threads' samples and hands
  // them out as a window of their own; later answers wait for the next edge.
  void HandOutWindow(const LoadResult& result) {
    for (auto& thread : threads_) {
      std::lock_guard lock(thread->samples_mutex);
      carried_.insert(carried_.end(), thread->samples.begin(), thread->samples.end());
      thread->samples.clear();
    }
    size_t to = result.edges_s.size() - 1;
    auto edge_us = static_cast<int64_t>(std::llround(result.edges_s[to] * 1e6));
    auto later = std::partition(carried_.begin(), carried_.end(),
                                [edge_us](const Sample& sample) { return sample.done_us <= edge_us; });
    LoadResult window;
    window.samples.assign(carried_.begin(), later);
    carried_.erase(carried_.begin(), later);
    window.edges_s = {result.edges_s[to - 1], result.edges_s[to]};
    window.server_at = {result.server_at[to - 1], result.server_at[to]};
    window.client_at = {result.client_at[to - 1], result.client_at[to]};
    window.machine_at = {result.machine_at[to - 1], result.machine_at[to]};
    plan_.on_window(window);
  }

  // Picks the connection's next request, waits for its due time in open loop, or stops.
  void Issue(ThreadState& thread, Worker& worker) {
    uint64_t sequence = sequence_.fetch_add(1, std::memory_order_relaxed);
    if (plan_.max_requests > 0 && sequence >= plan_.max_requests) return;
    Clock::time_point now = Clock::now();
    if (plan_.rate > 0) {
      Clock::time_point due = start_ + ToDuration(static_cast<double>(sequence) / plan_.rate);
      if (schedule_end_ && due >= *schedule_end_) return;
      if (schedule_end_ && now >= *schedule_end_ + ToDuration(plan_.grace_s)) return;
      if (due > now) {
        worker.timer.expires_at(due);
        worker.timer.async_wait([this, &thread, &worker, sequence](beast::error_code) {
          Send(thread, worker, sequence);
        });
        return;
      }
      double lag_ms = std::chrono::duration<double, std::milli>(now - due).count();
      thread.max_lag_ms = std::max(thread.max_lag_ms, lag_ms);
    } else if (schedule_end_ && now >= *schedule_end_) {
      return;
    }
    Send(thread, worker, sequence);
  }

  void Send(ThreadState& thread, Worker& worker, uint64_t sequence) {
    CosmosCall call = next_(sequence);
    Request request = BuildRequest(call, signer_, thread.date.Now(), host_header_);
    sent_.fetch_add(1, std::memory_order_relaxed);
    Clock::time_point sent = Clock::now();
    worker.connection.Send(std::move(request), [this, &thread, &worker, sent, operation = call.operation,
                                                on_answer = std::move(call.on_answer)](beast::error_code ec,
                                                                                      Response&& response) {
      Clock::time_point done = Clock::now();
      Sample sample;
      sample.operation = operation;
      sample.done_us = std::chrono::duration_cast<std::chrono::microseconds>(done - start_).count();
      sample.latency_us =
          static_cast<uint32_t>(std::chrono::duration_cast<std::chrono::microseconds>(done - sent).count());
      if (ec) {
        if (thread.first_error.empty()) thread.first_error = ec.message();
      } else {
        sample.status = static_cast<uint16_t>(response.result_int());
        auto charge = response.find("x-ms-request-charge");
        if (charge != response.end()) {
          std::string text(charge->value());
          sample.charge = std::strtof(text.c_str(), nullptr);
        }
      }
      {
        std::lock_guard lock(thread.samples_mutex);
        thread.samples.push_back(sample);
      }
      if (on_answer) on_answer(sample.status);
      if (!ec) return Issue(thread, worker);
      // A refused or broken connection fails fast: pause so a dead target is not hammered.
      worker.timer.expires_after(std::chrono::milliseconds(10));
      worker.timer.async_wait([this, &thread, &worker](beast::error_code) { Issue(thread, worker); });
    });
  }

  const MasterKeySigner& signer_;
  const RequestFactory& next_;
  const LoadPlan& plan_;
  std::string host_header_;
  std::vector<std::unique_ptr<ThreadState>> threads_;
  Clock::time_point start_;
  std::optional<Clock::time_point> schedule_end_;
  std::vector<Sample> carried_;  // on_window: answers after the last edge handed out
  std::atomic<uint64_t> sequence_{0};
  std::atomic<uint64_t> sent_{0};
};

}  // namespace

LoadResult RunLoad(const Target& target, net::ssl::context* tls_context, const MasterKeySigner& signer,
                   const RequestFactory& next, const LoadPlan& plan) {
  LoadRun run(target, tls_context, signer, next, plan);
  return run.Run();
}

WindowSummary Summarize(const LoadResult& result, size_t from, size_t to, int operation) {
  WindowSummary summary;
  double from_s = result.edges_s[from];
  double to_s = result.edges_s[to];
  summary.seconds = to_s - from_s;
  auto from_us = static_cast<int64_t>(std::llround(from_s * 1e6));
  auto to_us = static_cast<int64_t>(std::llround(to_s * 1e6));
  bool last_window = to + 1 == result.edges_s.size();
  std::vector<uint32_t> latencies;
  double latency_sum = 0;
  double charge_sum = 0;
  for (const Sample& sample : result.samples) {
    if (sample.done_us < from_us || sample.done_us > to_us || (sample.done_us == to_us && !last_window)) continue;
    if (operation != kAllOperations && sample.operation != operation) continue;
    if (Succeeded(sample.status)) {
      ++summary.ok;
      latencies.push_back(sample.latency_us);
      latency_sum += sample.latency_us;
    } else {
      ++summary.errors;
      ++summary.error_statuses[sample.status];
    }
    if (sample.status != 0) {
      if (sample.charge < 0) {
        ++summary.missing_charge;
      } else {
        charge_sum += sample.charge;
      }
    }
  }
  uint64_t answered = summary.ok + summary.errors;
  if (summary.seconds > 0) summary.ops_per_s = static_cast<double>(summary.ok) / summary.seconds;
  if (!latencies.empty()) {
    summary.mean_ms = latency_sum / static_cast<double>(latencies.size()) / 1000.0;
    summary.p50_ms = Quantile(latencies, 0.50) / 1000.0;
    summary.p99_ms = Quantile(latencies, 0.99) / 1000.0;
  }
  if (answered > summary.missing_charge) {
    summary.charge_mean = charge_sum / static_cast<double>(answered - summary.missing_charge);
  }
  if (operation != kAllOperations) return summary;
  const ProcessSample& server_from = result.server_at[from];
  const ProcessSample& server_to = result.server_at[to];
  if (server_from.valid && server_to.valid) {
    double cpu = server_to.cpu_seconds - server_from.cpu_seconds;
    if (answered > 0) summary.server_cpu_us_per_op = cpu * 1e6 / static_cast<double>(answered);
    if (summary.seconds > 0) summary.server_cpu_cores = cpu / summary.seconds;
    summary.server_rss_mb = server_to.rss_mb;
  }
  const ProcessSample& client_from = result.client_at[from];
  const ProcessSample& client_to = result.client_at[to];
  if (client_from.valid && client_to.valid && answered > 0) {
    summary.client_cpu_us_per_op =
        (client_to.cpu_seconds - client_from.cpu_seconds) * 1e6 / static_cast<double>(answered);
  }
  const MachineSample& machine_from = result.machine_at[from];
  const MachineSample& machine_to = result.machine_at[to];
  if (machine_from.valid && machine_to.valid && client_from.valid && client_to.valid && summary.seconds > 0) {
    double other = machine_to.busy_seconds - machine_from.busy_seconds -
                   (client_to.cpu_seconds - client_from.cpu_seconds) +
                   (machine_to.steal_seconds - machine_from.steal_seconds);
    if (server_from.valid && server_to.valid) other -= server_to.cpu_seconds - server_from.cpu_seconds;
    summary.other_load_cores = std::max(0.0, other / summary.seconds);
  }
  return summary;
}

namespace {

double Round(double value, double unit) { return std::round(value / unit) / (1 / unit); }

}  // namespace

nlohmann::json AnswersToJson(const WindowSummary& summary) {
  nlohmann::json statuses = nlohmann::json::object();
  for (const auto& [status, count] : summary.error_statuses) statuses[std::to_string(status)] = count;
  return {
      {"ok", summary.ok},
      {"errors", summary.errors},
      {"error_statuses", statuses},
      {"ops_per_s", Round(summary.ops_per_s, 0.1)},
      {"p50_ms", Round(summary.p50_ms, 0.001)},
      {"p99_ms", Round(summary.p99_ms, 0.001)},
      {"mean_ms", Round(summary.mean_ms, 0.001)},
      {"charge_mean", Round(summary.charge_mean, 0.01)},
      {"missing_charge", summary.missing_charge},
  };
}

nlohmann::json ToJson(const WindowSummary& summary) {
  nlohmann::json json = AnswersToJson(summary);
  json["seconds"] = Round(summary.seconds, 0.001);
  json["server_cpu_us_per_op"] = Round(summary.server_cpu_us_per_op, 0.1);
  json["server_cpu_cores"] = Round(summary.server_cpu_cores, 0.001);
  json["server_rss_mb"] = Round(summary.server_rss_mb, 0.1);
  json["client_cpu_us_per_op"] = Round(summary.client_cpu_us_per_op, 0.1);
  json["other_load_cores"] = Round(summary.other_load_cores, 0.01);
  return json;
}

}  // namespace cosmos::bench
