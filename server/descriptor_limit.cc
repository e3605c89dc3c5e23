#include "server/descriptor_limit.h"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <fstream>

#include <spdlog/spdlog.h>

namespace cosmos::server {

DescriptorLimit RaiseDescriptorLimit() {
  DescriptorLimit result;
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return result;
  auto as_count = [](rlim_t value) { return value == RLIM_INFINITY ? UINT64_MAX : static_cast<uint64_t>(value); };
  result.before = as_count(limit.rlim_cur);
  rlim_t target = limit.rlim_max;
  if (target == RLIM_INFINITY) {
    // Linux refuses a soft limit above fs.nr_open, whatever the hard limit says.
    std::ifstream nr_open("/proc/sys/fs/nr_open");
    unsigned long long most = 0;
    target = (nr_open >> most) && most > 0 ? static_cast<rlim_t>(most) : limit.rlim_cur;
  }
  if (limit.rlim_cur != RLIM_INFINITY && target > limit.rlim_cur) {
    rlimit raised = limit;
    raised.rlim_cur = target;
    if (setrlimit(RLIMIT_NOFILE, &raised) != 0) {
      spdlog::debug("cannot raise the descriptor limit from {} to {}: errno {}", limit.rlim_cur, target, errno);
    }
  }
  result.now = CurrentDescriptorLimit();
  return result;
}

uint64_t CurrentDescriptorLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  return limit.rlim_cur == RLIM_INFINITY ? UINT64_MAX : static_cast<uint64_t>(limit.rlim_cur);
}

size_t DefaultMaxConnections(uint64_t descriptor_limit, int io_threads, int worker_threads) {
  // What the process holds besides connections: stdin/out/err; per I/O thread an epoll, an eventfd
  // and a timerfd; the signal pipe, the listener and the spare; SQLite's data file and WAL for
  // the writer, the checkpointer and each reader (at most one per I/O thread, query thread and
  // background worker), and its shared memory; a certificate being read. A server with 2 I/O
  // threads and 4 query threads holds about 30 after a few queries; the reserve is 88 for it.
  uint64_t reserve = 64 + 4 * static_cast<uint64_t>(std::max(1, io_threads) + std::max(1, worker_threads));
  uint64_t room = descriptor_limit > 2 * reserve ? descriptor_limit - reserve : descriptor_limit / 2;
  return static_cast<size_t>(std::clamp<uint64_t>(room, 1, kDefaultMaxConnectionsCeiling));
}

}  // namespace cosmos::server
