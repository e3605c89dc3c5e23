#include "server/http_server.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "common/thread_name.h"
#include "server/connection_registry.h"
#include "server/http_session.h"

namespace cosmos::server {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

constexpr auto kShutdownGrace = std::chrono::seconds(10);
// After a failed accept (out of descriptors, or of kernel memory) the listener rests this long
// before accepting again, twice as long after each failure in a row, up to kAcceptBackoffMax: a
// starved server wakes a few times a second at most instead of spinning on a listener that stays
// readable.
constexpr auto kAcceptBackoffMin = std::chrono::milliseconds(50);
constexpr auto kAcceptBackoffMax = std::chrono::milliseconds(1000);
// How many waiting connections one starved round resets at most.
constexpr int kMaxResetPerRound = 1024;
// Warnings about refused connections: at most one this often, with the counts since the last.
constexpr auto kRefusalWarningInterval = std::chrono::seconds(10);

// Warns about refused or starved accepts at most once every kRefusalWarningInterval, with what
// happened since the last warning (acceptor strand only).
class RefusalWarning {
 public:
  // Counts one event; true when it is time to warn (then Take() gives the counts since).
  bool Note(size_t reset, size_t closed_idle) {
    ++events_;
    reset_ += reset;
    closed_idle_ += closed_idle;
    auto now = SteadyClock::now();
    if (warned_ && now - last_ < kRefusalWarningInterval) return false;
    warned_ = true;
    last_ = now;
    return true;
  }
  struct Counts {
    size_t events, reset, closed_idle;
  };
  Counts Take() {
    Counts counts{events_, reset_, closed_idle_};
    events_ = reset_ = closed_idle_ = 0;
    return counts;
  }

 private:
  bool warned_ = false;
  SteadyClock::time_point last_;
  size_t events_ = 0, reset_ = 0, closed_idle_ = 0;
};

// Closes an accepted socket with a reset, so that its client learns at once it was refused.
void ResetAndClose(int fd) {
  linger reset{1, 0};
  (void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
  (void)::close(fd);
}

int OpenSpareDescriptor() { return ::open("/dev/null", O_RDONLY | O_CLOEXEC); }

}  // namespace

class HttpServer::Impl {
 public:
  Impl(ServerOptions options, const RequestHandler& handler)
      : options_(std::move(options)),
        contexts_(MakeContexts(options_.threads)),
        state_(options_, handler, std::max(1, options_.worker_threads)),
        acceptor_(net::make_strand(*contexts_[0])),
        accept_timer_(acceptor_.get_executor()),
        signals_(*contexts_[0], SIGINT, SIGTERM),
        tls_context_(ssl::context::tls_server),
        max_connections_(options_.max_connections > 0
                             ? options_.max_connections
                             : DefaultMaxConnections(CurrentDescriptorLimit(), options_.threads,
                                                     options_.worker_threads)),
        spare_descriptor_(OpenSpareDescriptor()) {
    // Out of descriptors, the acceptor rests; a connection that closes ends the rest at once.
    state_.connections->SetOnRoom([this] {
      net::post(acceptor_.get_executor(), [this] {
        if (resting_) accept_timer_.cancel();
      });
    });
  }

  ~Impl() {
    state_.connections->SetOnRoom(nullptr);  // sessions may outlive this (a shutdown's abandoned requests)
    FinishWatchdog();
    if (spare_descriptor_ >= 0) ::close(spare_descriptor_);
  }

  Status Listen() {
    beast::error_code ec;
    if (!options_.certificate_pem.empty()) {
      tls_context_.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                               ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                               ssl::context::no_tlsv1_1);
      tls_context_.use_certificate_chain(net::buffer(options_.certificate_pem), ec);
      if (!ec) tls_context_.use_private_key(net::buffer(options_.private_key_pem), ssl::context::pem, ec);
      if (ec) return Status::Internal("cannot load the TLS certificate: " + ec.message());
    }
    auto address = net::ip::make_address(options_.host, ec);
    if (ec) return Status::Internal("invalid host address '" + options_.host + "': " + ec.message());
    tcp::endpoint endpoint(address, options_.port);
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
    // RefusePending accepts until the queue is empty: it must not block then.
    if (!ec) acceptor_.non_blocking(true, ec);
    if (ec) {
      return Status::Internal("cannot listen on " + options_.host + ":" +
                              std::to_string(options_.port) + ": " + ec.message());
    }
    return Status();
  }

  unsigned short BoundPort() const { return acceptor_.local_endpoint().port(); }
  size_t ConnectionCount() const { return state_.connections->Count(); }
  size_t MaxConnections() const { return max_connections_; }

  void Run() {
    signals_.async_wait([this](beast::error_code ec, int signal) {
      if (!ec) {
        spdlog::info("signal {} received: finishing requests in flight, then exiting", signal);
        Shutdown();
      }
    });
    net::dispatch(acceptor_.get_executor(), [this] { DoAccept(); });
    std::vector<std::thread> workers;
    for (size_t index = 1; index < contexts_.size(); ++index) {
      workers.emplace_back([this, index] {
        NameThisThread("cosmolite-io");
        contexts_[index]->run();
      });
    }
    contexts_[0]->run();
    for (auto& worker : workers) worker.join();
    state_.queries.Join();
    state_.writes.Stop();
    FinishWatchdog();
  }

  void Shutdown() {
    if (state_.stopping.exchange(true)) return;
    if (options_.on_shutdown) options_.on_shutdown();
    {
      // Started before anything can let Run() return, so that Run() always joins it.
      // Requests still running after the grace period are abandoned.
      std::lock_guard<std::mutex> lock(done_mu_);
      watchdog_ = std::thread([this] {
        std::unique_lock<std::mutex> wait_lock(done_mu_);
        if (!done_cv_.wait_for(wait_lock, kShutdownGrace, [this] { return done_; })) {
          for (auto& context : contexts_) context->stop();
        }
      });
    }
    net::post(acceptor_.get_executor(), [this] {
      beast::error_code ignored;
      acceptor_.close(ignored);
      accept_timer_.cancel();
      signals_.cancel(ignored);
    });
    state_.CloseAll();
    // Each context now runs until its last connection ends.
    for (auto& guard : idle_guards_) guard.reset();
  }

 private:
  // Tells the shutdown watchdog that serving is over and waits for it to end.
  void FinishWatchdog() {
    std::thread watchdog;
    {
      std::lock_guard<std::mutex> lock(done_mu_);
      done_ = true;
      watchdog = std::move(watchdog_);
    }
    done_cv_.notify_all();
    if (watchdog.joinable()) watchdog.join();
  }

  // Acceptor strand only, as everything below.
  void DoAccept() {
    // Connections take the I/O threads in turn; each stays on its thread.
    net::io_context& context = *contexts_[next_context_++ % contexts_.size()];
    acceptor_.async_accept(net::make_strand(context), [this](beast::error_code ec, tcp::socket socket) {
      if (ec == net::error::operation_aborted || state_.stopping) return;
      if (ec) return OnAcceptFailed(ec);
      accept_backoff_ = kAcceptBackoffMin;
      Admit(std::move(socket));
      DoAccept();
    });
  }

  // At the cap, a new connection takes the place of the idlest one waiting between requests:
  // the SDKs keep pools of keep-alive connections and open another when one closes, while a
  // refused newcomer would fail its request. When every connection is in a request (slow clients
  // among them, each bounded by its deadlines), the newcomer is refused with a reset.
  void Admit(tcp::socket socket) {
    if (state_.connections->Count() >= max_connections_) {
      bool made_room = state_.connections->CloseIdlest();
      if (!made_room) {
        beast::error_code ignored;
        socket.set_option(net::socket_base::linger(true, 0), ignored);
        socket.close(ignored);
      }
      if (at_cap_.Note(made_room ? 0 : 1, made_room ? 1 : 0)) {
        auto counts = at_cap_.Take();
        // Closing idle connections is routine (the clients reconnect); refusing one is not.
        spdlog::log(counts.reset > 0 ? spdlog::level::warn : spdlog::level::info,
                    "at the connection cap ({}, --max-connections): {} connections arrived; {} idle connections "
                    "closed to make room for them, {} refused with a reset as no connection was idle",
                    max_connections_, counts.events, counts.closed_idle, counts.reset);
      }
      if (!made_room) return;
    }
    beast::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    StartSession(std::move(socket));
  }

  // An accept failed. Out of descriptors (EMFILE, ENFILE), the listener stays readable while
  // connections wait: accepting again at once would spin. Instead the idlest connection is closed
  // to make room; failing that, the waiting connections are accepted on the spare descriptor and
  // reset, so that their clients learn at once rather than hang. Either way accepting rests
  // (kAcceptBackoffMin, doubling to kAcceptBackoffMax) before it resumes, or until a connection
  // closes and frees a descriptor, whichever comes first.
  void OnAcceptFailed(const beast::error_code& ec) {
    bool out_of_descriptors =
        ec == net::error::no_descriptors ||
        (ec.category() == boost::system::system_category() && (ec.value() == ENFILE || ec.value() == EMFILE));
    size_t reset = 0;
    bool made_room = false;
    if (out_of_descriptors) {
      state_.connections->CallWhenRoom();
      made_room = state_.connections->CloseIdlest();
      if (!made_room) reset = RefusePending();
    }
    auto backoff = accept_backoff_;
    accept_backoff_ = std::min<std::chrono::milliseconds>(accept_backoff_ * 2, kAcceptBackoffMax);
    spdlog::debug("accept failed: {}; {}, {} waiting connections reset; resting {} ms", ec.message(),
                  made_room ? "the idlest connection closed" : "no idle connection to close", reset, backoff.count());
    if (starved_.Note(reset, made_room ? 1 : 0)) {
      auto counts = starved_.Take();
      spdlog::warn("accepting connections failed: {} (descriptor limit {}, {} connections open); {} failures, {} "
                   "idle connections closed to make room, {} waiting connections reset since the last warning; "
                   "accepting again in {} ms",
                   ec.message(), CurrentDescriptorLimit(), state_.connections->Count(), counts.events,
                   counts.closed_idle, counts.reset, backoff.count());
    }
    resting_ = true;
    accept_timer_.expires_after(backoff);
    // Cancelled early when a connection leaves (room), or by Shutdown (stopping).
    accept_timer_.async_wait([this](beast::error_code) {
      resting_ = false;
      if (state_.stopping) return;
      DoAccept();
    });
  }

  // Frees the spare descriptor, accepts the connections waiting on it one at a time and resets
  // each, then takes the spare back. Returns how many were reset.
  size_t RefusePending() {
    if (spare_descriptor_ >= 0) ::close(spare_descriptor_);
    spare_descriptor_ = -1;
    size_t reset = 0;
    while (reset < kMaxResetPerRound) {
      int fd = ::accept4(acceptor_.native_handle(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        break;  // none left (EAGAIN), or no descriptor even so
      }
      ResetAndClose(fd);
      ++reset;
    }
    spare_descriptor_ = OpenSpareDescriptor();  // -1 if taken meanwhile: tried again next time
    return reset;
  }

  void StartSession(tcp::socket&& socket) {
    ConnectionTicket ticket = ConnectionRegistry::Add(state_.connections);
    ServeConnection(state_, std::move(ticket), std::move(socket),
                    options_.certificate_pem.empty() ? nullptr : &tls_context_);
  }

  // One I/O context per I/O thread: a connection's reads, writes and answers stay on one thread,
  // and the threads never wake each other to share a queue.
  static std::vector<std::unique_ptr<net::io_context>> MakeContexts(int threads) {
    std::vector<std::unique_ptr<net::io_context>> contexts;
    for (int index = 0; index < std::max(1, threads); ++index) contexts.push_back(std::make_unique<net::io_context>(1));
    return contexts;
  }
  static std::vector<net::executor_work_guard<net::io_context::executor_type>> MakeGuards(
      const std::vector<std::unique_ptr<net::io_context>>& contexts) {
    std::vector<net::executor_work_guard<net::io_context::executor_type>> guards;
    for (const auto& context : contexts) guards.push_back(net::make_work_guard(*context));
    return guards;
  }

  ServerOptions options_;
  // Before state_: the write thread posts answers to them until state_ goes.
  std::vector<std::unique_ptr<net::io_context>> contexts_;
  // Keep every context running while it has no connection, until Shutdown.
  std::vector<net::executor_work_guard<net::io_context::executor_type>> idle_guards_ = MakeGuards(contexts_);
  ServerState state_;
  tcp::acceptor acceptor_;
  net::steady_timer accept_timer_;  // the rest after a failed accept (acceptor strand)
  net::signal_set signals_;
  ssl::context tls_context_;
  const size_t max_connections_;
  // Acceptor strand only:
  size_t next_context_ = 0;
  std::chrono::milliseconds accept_backoff_ = kAcceptBackoffMin;
  bool resting_ = false;  // accept_timer_ runs
  int spare_descriptor_;  // /dev/null, given up to accept (and reset) a connection when out of descriptors
  RefusalWarning at_cap_;
  RefusalWarning starved_;
  std::mutex done_mu_;
  std::condition_variable done_cv_;
  std::thread watchdog_;  // guarded by done_mu_
  bool done_ = false;     // guarded by done_mu_
};

HttpServer::HttpServer(ServerOptions options, const RequestHandler& handler)
    : impl_(std::make_unique<Impl>(std::move(options), handler)) {}
HttpServer::~HttpServer() = default;
Status HttpServer::Listen() { return impl_->Listen(); }
unsigned short HttpServer::BoundPort() const { return impl_->BoundPort(); }
void HttpServer::Run() { impl_->Run(); }
void HttpServer::Shutdown() { impl_->Shutdown(); }
size_t HttpServer::ConnectionCount() const { return impl_->ConnectionCount(); }
size_t HttpServer::MaxConnections() const { return impl_->MaxConnections(); }

}  // namespace cosmos::server
