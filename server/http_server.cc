#include "server/http_server.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/core/detect_ssl.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "common/json.h"
#include "common/thread_name.h"
#include "server/error_mapping.h"
#include "server/headers.h"

namespace cosmos::server {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

constexpr auto kIdleTimeout = std::chrono::seconds(120);
constexpr auto kTlsShutdownTimeout = std::chrono::seconds(5);
// The niceness of query threads (0 is everyone else's): at 5 the scheduler gives a busy query
// thread about a third of the CPU time of a busy I/O or write thread.
constexpr int kQueryThreadNice = 5;
constexpr auto kShutdownGrace = std::chrono::seconds(10);

// What the server can ask of every live session.
class SessionControl {
 public:
  virtual ~SessionControl() = default;
  // Closes the connection now if it is idle, otherwise after the response in flight.
  virtual void CloseWhenIdle() = 0;
};

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
  void Submit(HttpRequest request, net::io_context& io, Done done) {
    PreparedWrite prepared = handler_.PrepareWrite(std::move(request));
    bool idle;
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back({std::move(prepared), &io, std::move(done)});
      idle = idle_;
    }
    if (idle) wake_.notify_one();
  }

  // Answers what is queued, then ends the thread.
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

 private:
  struct Pending {
    PreparedWrite write;
    net::io_context* io;
    Done done;
  };
  struct Answer {
    Pending pending;
    HttpResponse response;
  };

  void Loop() {
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

  const RequestHandler& handler_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::vector<Pending> queue_;  // guarded by mu_
  bool idle_ = false;           // guarded by mu_: the thread waits for work
  bool stopping_ = false;       // guarded by mu_
  std::thread thread_;          // last: starts once the members above exist
};

struct ServerState {
  ServerState(const RequestHandler& h, int query_threads) : handler(h), queries(query_threads), writes(h) {}

  const RequestHandler& handler;
  net::thread_pool queries;  // runs queries, which may take long, off the I/O threads
  WriteBatcher writes;       // runs every other request that is not a GET or HEAD
  std::atomic<bool> stopping{false};
  std::mutex mu;
  std::vector<std::weak_ptr<SessionControl>> sessions;  // guarded by mu

  void Register(std::weak_ptr<SessionControl> session) {
    std::lock_guard<std::mutex> lock(mu);
    std::erase_if(sessions, [](const auto& weak) { return weak.expired(); });
    sessions.push_back(std::move(session));
  }
  void CloseAll() {
    std::vector<std::shared_ptr<SessionControl>> live;
    {
      std::lock_guard<std::mutex> lock(mu);
      for (auto& weak : sessions) {
        if (auto session = weak.lock()) live.push_back(std::move(session));
      }
    }
    for (auto& session : live) session->CloseWhenIdle();
  }
};

// Query threads yield the CPU to the I/O and write threads: a few long queries must not starve
// the point reads and writes of everyone else (on 2 cores, with 4 query threads busy, the p99 of
// a point read was 5.8 ms at equal priority, 2.6 ms at nice 5, for 14% fewer query pages). Done
// on a thread's first query; nice applies per thread on Linux.
void BecomeQueryThread() {
  thread_local bool done = false;
  if (done) return;
  done = true;
  NameThisThread("cosmolite-query");
  (void)setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), kQueryThreadNice);
}

HttpRequest ToHttpRequest(http::request<http::string_body>&& message, bool secure) {
  HttpRequest request;
  request.method = std::string(message.method_string());
  request.target = std::string(message.target());
  for (const auto& field : message) {
    request.headers.Set(std::string(field.name_string()), std::string(field.value()));
  }
  request.body = std::move(message.body());
  // JSON text may open with a UTF-8 byte-order mark, which is no part of the document to store.
  if (request.body.rfind("\xEF\xBB\xBF", 0) == 0) request.body.erase(0, 3);
  request.secure = secure;
  return request;
}

// Answers to requests that never reach the handler because the HTTP layer rejected them.
HttpResponse TransportError(const Status& status) {
  HttpResponse response = ErrorResponse(status, "00000000-0000-0000-0000-000000000000");
  response.AddHeader(headers::kRequestCharge, "0.00");
  response.AddHeader(headers::kResponseContentType, "application/json");
  return response;
}

// One connection: read a request, answer it, repeat while keep-alive holds.
// Derived provides stream(), Start() and DoClose().
template <class Derived>
class HttpSession : public SessionControl {
 public:
  void CloseWhenIdle() override {
    net::post(Self().stream().get_executor(), [self = Self().shared_from_this()] {
      if (self->reading_ && self->buffer_.size() == 0 && !self->parser_->got_some()) {
        self->DoClose();
      } else {
        self->close_after_response_ = true;
      }
    });
  }

 protected:
  HttpSession(ServerState& state, beast::flat_buffer buffer, bool secure)
      : state_(state), buffer_(std::move(buffer)), secure_(secure) {}

  Derived& Self() { return static_cast<Derived&>(*this); }

  void DoRead() {
    if (state_.stopping || close_after_response_) return Self().DoClose();
    parser_.emplace();
    parser_->body_limit(kMaxRequestBodyBytes);
    parser_->header_limit(kMaxRequestHeaderBytes);
    reading_ = true;
    beast::get_lowest_layer(Self().stream()).expires_after(kIdleTimeout);
    http::async_read(Self().stream(), buffer_, *parser_,
                     beast::bind_front_handler(&HttpSession::OnRead, Self().shared_from_this()));
  }

  void OnRead(beast::error_code ec, std::size_t) {
    reading_ = false;
    if (ec == http::error::end_of_stream) return Self().DoClose();
    if (ec == http::error::body_limit) {
      return Send(TransportError(Status::RequestEntityTooLarge("Request size is too large")), 11, true);
    }
    if (ec == http::error::header_limit) {
      return Send(TransportError(Status::BadRequest("The request headers are too large.")), 11, true);
    }
    if (ec && ec.category() == http::make_error_code(http::error::bad_target).category()) {
      return Send(TransportError(Status::BadRequest("Malformed HTTP request: " + ec.message())), 11, true);
    }
    if (ec) return Self().DoClose();  // timeout, reset or shutdown

    http::request<http::string_body> message = parser_->release();
    unsigned version = message.version();
    bool keep_alive = message.keep_alive();
    HttpRequest request = ToHttpRequest(std::move(message), secure_);
    if (request.method == "GET" || request.method == "HEAD") {
      // Reads are short: answer them on the I/O thread.
      return Send(state_.handler.Handle(request), version, !keep_alive);
    }
    // Writes go to the write thread, queries to the query pool; the answer comes back to this
    // connection's strand, and starts there at once when it arrives on the connection's I/O
    // thread (dispatch). The tracked executor counts as pending work, so a shutdown still sends
    // the answer before Run() returns.
    auto strand = net::prefer(Self().stream().get_executor(), net::execution::outstanding_work.tracked);
    auto answer = [self = Self().shared_from_this(), strand, version, keep_alive](HttpResponse response) {
      net::dispatch(strand, [self, response = std::move(response), version, keep_alive]() mutable {
        self->Send(std::move(response), version, !keep_alive);
      });
    };
    if (RequestHandler::MayWrite(request)) {
      auto& io = static_cast<net::io_context&>(net::query(strand, net::execution::context));
      return state_.writes.Submit(std::move(request), io, std::move(answer));
    }
    net::post(state_.queries, [self = Self().shared_from_this(), request = std::move(request),
                               answer = std::move(answer)]() mutable {
      BecomeQueryThread();
      answer(self->state_.handler.Handle(request));
    });
  }

  void Send(HttpResponse response, unsigned version, bool close) {
    close = close || state_.stopping || close_after_response_;
    auto& message = response_.emplace(static_cast<http::status>(response.status), version);
    for (auto& [name, value] : response.headers) message.insert(name, value);
    message.body() = std::move(response.body);
    message.keep_alive(!close);
    message.prepare_payload();
    http::async_write(Self().stream(), message,
                      beast::bind_front_handler(&HttpSession::OnWrite, Self().shared_from_this(), close));
  }

  void OnWrite(bool close, beast::error_code ec, std::size_t) {
    response_.reset();
    if (ec || close) return Self().DoClose();
    DoRead();
  }

  ServerState& state_;
  beast::flat_buffer buffer_;
  bool secure_;

 private:
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::string_body>> response_;
  bool reading_ = false;               // waiting in async_read (strand only)
  bool close_after_response_ = false;  // shutdown asked while busy (strand only)
};

class PlainSession : public HttpSession<PlainSession>,
                     public std::enable_shared_from_this<PlainSession> {
 public:
  PlainSession(ServerState& state, beast::tcp_stream&& stream, beast::flat_buffer buffer)
      : HttpSession(state, std::move(buffer), false), stream_(std::move(stream)) {}

  beast::tcp_stream& stream() { return stream_; }
  void Start() { DoRead(); }
  void DoClose() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.socket().close(ignored);
  }

 private:
  beast::tcp_stream stream_;
};

class TlsSession : public HttpSession<TlsSession>, public std::enable_shared_from_this<TlsSession> {
 public:
  TlsSession(ServerState& state, beast::tcp_stream&& stream, ssl::context& context,
             beast::flat_buffer buffer)
      : HttpSession(state, std::move(buffer), true), stream_(std::move(stream), context) {}

  beast::ssl_stream<beast::tcp_stream>& stream() { return stream_; }

  void Start() {
    beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(30));
    stream_.async_handshake(ssl::stream_base::server, buffer_.data(),
                            beast::bind_front_handler(&TlsSession::OnHandshake, shared_from_this()));
  }

  void DoClose() {
    if (closing_) return;
    closing_ = true;
    beast::get_lowest_layer(stream_).expires_after(kTlsShutdownTimeout);
    stream_.async_shutdown([self = shared_from_this()](beast::error_code) {
      beast::error_code ignored;
      beast::get_lowest_layer(self->stream_).socket().close(ignored);
    });
  }

 private:
  void OnHandshake(beast::error_code ec, std::size_t bytes_used) {
    if (ec) {
      spdlog::debug("TLS handshake failed: {}", ec.message());
      beast::error_code ignored;
      beast::get_lowest_layer(stream_).socket().close(ignored);
      return;
    }
    buffer_.consume(bytes_used);
    DoRead();
  }

  beast::ssl_stream<beast::tcp_stream> stream_;
  bool closing_ = false;
};

// Reads the first bytes of a connection to tell a TLS handshake from plain HTTP.
class DetectSession : public SessionControl, public std::enable_shared_from_this<DetectSession> {
 public:
  DetectSession(ServerState& state, tcp::socket&& socket, ssl::context& context)
      : state_(state), stream_(std::move(socket)), context_(context) {}

  void CloseWhenIdle() override {
    net::post(stream_.get_executor(), [self = shared_from_this()] {
      if (self->buffer_.size() == 0) self->stream_.cancel();
    });
  }

  void Start() {
    stream_.expires_after(std::chrono::seconds(30));
    beast::async_detect_ssl(stream_, buffer_,
                            beast::bind_front_handler(&DetectSession::OnDetect, shared_from_this()));
  }

 private:
  void OnDetect(beast::error_code ec, bool is_tls) {
    if (ec) return;
    if (is_tls) {
      auto session = std::make_shared<TlsSession>(state_, std::move(stream_), context_, std::move(buffer_));
      state_.Register(session);
      session->Start();
    } else {
      auto session = std::make_shared<PlainSession>(state_, std::move(stream_), std::move(buffer_));
      state_.Register(session);
      session->Start();
    }
  }

  ServerState& state_;
  beast::tcp_stream stream_;
  ssl::context& context_;
  beast::flat_buffer buffer_;
};

}  // namespace

class HttpServer::Impl {
 public:
  Impl(ServerOptions options, const RequestHandler& handler)
      : options_(std::move(options)),
        contexts_(MakeContexts(options_.threads)),
        state_(handler, std::max(1, options_.worker_threads)),
        acceptor_(net::make_strand(*contexts_[0])),
        signals_(*contexts_[0], SIGINT, SIGTERM),
        tls_context_(ssl::context::tls_server) {}

  ~Impl() { FinishWatchdog(); }

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
    if (ec) {
      return Status::Internal("cannot listen on " + options_.host + ":" +
                              std::to_string(options_.port) + ": " + ec.message());
    }
    return Status();
  }

  unsigned short BoundPort() const { return acceptor_.local_endpoint().port(); }

  void Run() {
    signals_.async_wait([this](beast::error_code ec, int signal) {
      if (!ec) {
        spdlog::info("signal {} received: finishing requests in flight, then exiting", signal);
        Shutdown();
      }
    });
    DoAccept();
    std::vector<std::thread> workers;
    for (size_t index = 1; index < contexts_.size(); ++index) {
      workers.emplace_back([this, index] {
        NameThisThread("cosmolite-io");
        contexts_[index]->run();
      });
    }
    contexts_[0]->run();
    for (auto& worker : workers) worker.join();
    state_.queries.join();
    state_.writes.Stop();
    FinishWatchdog();
  }

  void Shutdown() {
    if (state_.stopping.exchange(true)) return;
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

  void DoAccept() {
    // Connections take the I/O threads in turn; each stays on its thread.
    net::io_context& context = *contexts_[next_context_++ % contexts_.size()];
    acceptor_.async_accept(net::make_strand(context), [this](beast::error_code ec, tcp::socket socket) {
      if (ec == net::error::operation_aborted || state_.stopping) return;
      if (!ec) {
        socket.set_option(tcp::no_delay(true), ec);
        StartSession(std::move(socket));
      }
      DoAccept();
    });
  }

  void StartSession(tcp::socket&& socket) {
    if (options_.certificate_pem.empty()) {
      auto session = std::make_shared<PlainSession>(state_, beast::tcp_stream(std::move(socket)),
                                                    beast::flat_buffer());
      state_.Register(session);
      session->Start();
    } else {
      auto session = std::make_shared<DetectSession>(state_, std::move(socket), tls_context_);
      state_.Register(session);
      session->Start();
    }
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
  size_t next_context_ = 0;  // acceptor's strand only
  ServerState state_;
  tcp::acceptor acceptor_;
  net::signal_set signals_;
  ssl::context tls_context_;
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

}  // namespace cosmos::server
