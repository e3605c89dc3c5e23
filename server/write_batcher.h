// WriteBatcher: the write thread (`cosmolite-write`), which runs every request that may write, in
// batches that share one commit, and hands the answers back to the I/O threads. Internal to
// server/: the sessions (http_session.cc) submit writes to it; the public API is http_server.h.
// Thread-safety: Submit may be called from any thread (the I/O threads do); Stop from one thread.
// Each write's answer runs on the I/O context it was submitted with.
#pragma once

#include <boost/asio/io_context.hpp>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "server/http_message.h"
#include "server/request_handler.h"

namespace cosmos::server {

// Runs write requests on one thread, in batches: whatever queued while one batch ran becomes the
// next, and its writes share one commit (RequestHandler::HandleWrites). One thread rather than a
// pool: SQLite takes one writer at a time anyway, and a single thread that wakes once per batch
// spares the context switches of many threads taking turns at the store's lock. For the same
// reason a batch's answers go back as one handler per I/O thread, which starts every response of
// its connections: one wake-up per thread and batch instead of one per write.
class WriteBatcher {
 public:
  // Called on the connection's I/O thread with the write's response.
  using Done = std::function<void(HttpResponse)>;

  explicit WriteBatcher(const RequestHandler& handler) : handler_(handler), thread_([this] { Loop(); }) {}
  ~WriteBatcher() { Stop(); }

  // Prepares the write on the calling thread (RequestHandler::PrepareWrite), then queues it;
  // `done` runs on `io`, the connection's I/O context.
  void Submit(HttpRequest request, boost::asio::io_context& io, Done done);

  // Answers what is queued, then ends the thread.
  void Stop();

 private:
  struct Pending {
    PreparedWrite write;
    boost::asio::io_context* io;
    Done done;
  };
  struct Answer {
    Pending pending;
    HttpResponse response;
  };

  void Loop();

  const RequestHandler& handler_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::vector<Pending> queue_;  // guarded by mu_
  bool idle_ = false;           // guarded by mu_: the thread waits for work
  bool stopping_ = false;       // guarded by mu_
  std::thread thread_;          // last: starts once the members above exist
};

}  // namespace cosmos::server
