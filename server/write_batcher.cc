#include "server/write_batcher.h"

#include <boost/asio/post.hpp>
#include <utility>

#include "common/thread_name.h"

namespace cosmos::server {
namespace {

namespace net = boost::asio;

}  // namespace

void WriteBatcher::Submit(HttpRequest request, net::io_context& io, Done done) {
  PreparedWrite prepared = handler_.PrepareWrite(std::move(request));
  bool idle;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back({std::move(prepared), &io, std::move(done)});
    idle = idle_;
  }
  if (idle) wake_.notify_one();
}

void WriteBatcher::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void WriteBatcher::Loop() {
  NameThisThread("cosmolite-write");
  std::vector<Pending> batch;
  std::vector<PreparedWrite*> writes;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      idle_ = true;
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      idle_ = false;
      if (queue_.empty()) return;
      batch.swap(queue_);
    }
    writes.clear();
    for (Pending& pending : batch) writes.push_back(&pending.write);
    std::vector<HttpResponse> responses = handler_.HandleWrites(writes);
    // Each I/O context gets the answers of its connections in one handler, which also
    // completes them and frees their requests: work the write thread, the bottleneck of
    // writes, need not do.
    for (size_t first = 0; first < batch.size(); ++first) {
      net::io_context* io = batch[first].io;
      if (io == nullptr) continue;  // answered with an earlier context's
      std::vector<Answer> answers;
      for (size_t index = first; index < batch.size(); ++index) {
        if (batch[index].io != io) continue;
        answers.push_back({std::move(batch[index]), std::move(responses[index])});
        batch[index].io = nullptr;
      }
      net::post(*io, [&handler = handler_, answers = std::move(answers)]() mutable {
        for (Answer& answer : answers) {
          handler.CompleteAnswer(answer.response, answer.pending.write.context);
          answer.pending.done(std::move(answer.response));
        }
      });
    }
    batch.clear();
  }
}

}  // namespace cosmos::server
