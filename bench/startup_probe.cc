#include "bench/startup_probe.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "bench/process_stats.h"

extern char** environ;

namespace cosmos::bench {
namespace {

using Clock = std::chrono::steady_clock;

std::string Substitute(std::string text, const std::string& key, const std::string& value) {
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size())) {
    text.replace(at, key.size(), value);
  }
  return text;
}

// Stops the child: SIGTERM, then SIGKILL after five seconds.
void Stop(pid_t pid) {
  kill(pid, SIGTERM);
  auto deadline = Clock::now() + std::chrono::seconds(5);
  while (Clock::now() < deadline) {
    if (waitpid(pid, nullptr, WNOHANG) == pid) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

}  // namespace

unsigned short FreePort() {
  net::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
  return acceptor.local_endpoint().port();
}

int RunStartupProbe(const StartupOptions& options) {
  std::unique_ptr<net::ssl::context> tls_context = options.tls ? MakeClientTlsContext() : nullptr;
  int failures = 0;
  for (int run = 1; run <= options.starts; ++run) {
    std::string dir_template = (std::filesystem::temp_directory_path() / "cosmolite-bench-start-XXXXXX").string();
    if (mkdtemp(dir_template.data()) == nullptr) {
      std::perror("mkdtemp");
      return 1;
    }
    std::string dir = dir_template;
    unsigned short port = FreePort();
    std::vector<std::string> args;
    for (const std::string& arg : options.command) {
      args.push_back(Substitute(Substitute(arg, "{port}", std::to_string(port)), "{dir}", dir));
    }
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    std::string log_path = dir + "/server.log";
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);

    Target target{options.host, port, options.tls};
    auto started = Clock::now();
    pid_t pid = 0;
    int spawn_error = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawn_error != 0) {
      std::cerr << "startup: cannot spawn " << args[0] << ": " << std::strerror(spawn_error) << "\n";
      return 1;
    }

    double ready_ms = -1;
    bool exited = false;
    auto deadline = started + std::chrono::duration<double>(options.timeout_s);
    while (Clock::now() < deadline) {
      if (waitpid(pid, nullptr, WNOHANG) == pid) {
        exited = true;
        break;
      }
      SyncClient client(target, tls_context.get(), std::chrono::seconds(2));
      Request request(http::verb::get, options.ready_path, 11);
      request.set(http::field::host, target.HostHeader());
      Response response;
      if (!client.Send(std::move(request), response) && response.result_int() == 200) {
        ready_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }

    double idle_rss_mb = -1;
    if (ready_ms >= 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(options.idle_ms));
      idle_rss_mb = SampleProcess(pid).rss_mb;
    }
    if (!exited) Stop(pid);
    if (ready_ms < 0) {
      ++failures;
      std::cerr << "startup " << options.label << " run " << run << ": not ready ("
                << (exited ? "exited" : "timed out") << "), log in " << log_path << "\n";
      continue;
    }
    std::filesystem::remove_all(dir);
    nlohmann::json line = {{"target", options.label},         {"workload", "startup"},
                           {"run", run},                      {"ready_ms", std::round(ready_ms * 100) / 100},
                           {"idle_rss_mb", std::round(idle_rss_mb * 10) / 10}};
    std::cout << line.dump() << std::endl;
    std::fprintf(stderr, "%s startup run %d: ready in %.1f ms, idle RSS %.1f MB\n", options.label.c_str(), run,
                 ready_ms, idle_rss_mb);
  }
  return failures > 0 ? 1 : 0;
}

}  // namespace cosmos::bench
