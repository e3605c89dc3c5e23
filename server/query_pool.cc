#include "server/query_pool.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/thread_name.h"

namespace cosmos::server {
namespace {

// The niceness of query threads (0 is everyone else's): at 5 the scheduler gives a busy query
// thread about a third of the CPU time of a busy I/O or write thread.
constexpr int kQueryThreadNice = 5;

}  // namespace

void BecomeQueryThread() {
  thread_local bool done = false;
  if (done) return;
  done = true;
  NameThisThread("cosmolite-query");
  (void)setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), kQueryThreadNice);
}

}  // namespace cosmos::server
