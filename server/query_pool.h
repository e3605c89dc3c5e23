// QueryPool: the threads that run queries (ServerOptions::worker_threads, `--workers`), which may
// take long, off the I/O threads, and at a lower priority than the I/O and write threads. Internal
// to server/: the sessions (http_session.cc) post queries to it; the public API is http_server.h.
// Thread-safety: Post may be called from any thread; Join from one thread, once serving is over.
#pragma once

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cstddef>
#include <utility>

namespace cosmos::server {

// Query threads yield the CPU to the I/O and write threads: a few long queries must not starve
// the point reads and writes of everyone else (on 2 cores, with 4 query threads busy, the p99 of
// a point read was 5.8 ms at equal priority, 2.6 ms at nice 5, for 14% fewer query pages). Done
// on a thread's first query; nice applies per thread on Linux.
void BecomeQueryThread();

class QueryPool {
 public:
  explicit QueryPool(int threads) : pool_(static_cast<std::size_t>(threads)) {}

  // Runs `query` (a callable taking no argument) on a query thread.
  template <class Query>
  void Post(Query&& query) {
    boost::asio::post(pool_, [query = std::forward<Query>(query)]() mutable {
      BecomeQueryThread();
      query();
    });
  }

  // Waits for the queries queued and running to end (Run(), once the I/O threads are done).
  void Join() { pool_.join(); }

 private:
  boost::asio::thread_pool pool_;
};

}  // namespace cosmos::server
