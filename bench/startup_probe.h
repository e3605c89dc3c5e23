// Start-to-ready and idle-memory probe: spawns a server command several times, each on a free
// port and an empty scratch directory, measures spawn -> first 200 answer to the ready path, then
// the resident memory after an idle pause, and stops it with SIGTERM.
// Thread-safety: runs on the calling thread only.
#pragma once

#include <string>
#include <vector>

#include "bench/http_client.h"

namespace cosmos::bench {

struct StartupOptions {
  // argv of the server; "{port}" and "{dir}" are replaced by the port and the scratch directory.
  std::vector<std::string> command;
  int starts = 5;
  int idle_ms = 1000;
  std::string host = "127.0.0.1";
  bool tls = false;
  std::string ready_path = "/ready";
  std::string label;
  double timeout_s = 15;
};

// Prints one JSON object per start on stdout ({"workload":"startup","run":n,"ready_ms":..,
// "idle_rss_mb":..}) and a human line on stderr. Returns 0, or 1 if a start failed.
int RunStartupProbe(const StartupOptions& options);

// A TCP port on 127.0.0.1 that nobody listens on right now.
unsigned short FreePort();

}  // namespace cosmos::bench
