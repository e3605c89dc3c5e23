#include "server/http_server.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/core/detect_ssl.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
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

constexpr auto kTlsShutdownTimeout = std::chrono::seconds(5);
// The niceness of query threads (0 is everyone else's): at 5 the scheduler gives a busy query
// thread about a third of the CPU time of a busy I/O or write thread.
constexpr int kQueryThreadNice = 5;
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
// A connection that has not had a request yet may not be closed to make room before it has waited
// this long: its client has just connected and its request is on its way (out of descriptors,
// each connection accepted would otherwise be closed by the next one before it was read).
constexpr auto kNewConnectionGrace = std::chrono::seconds(1);

using SteadyClock = std::chrono::steady_clock;

// What the server can ask of every live session.
class SessionControl {
 public:
  virtual ~SessionControl() = default;
  // Closes the connection now if it is idle, otherwise after the response in flight.
  virtual void CloseWhenIdle() = 0;
};

// A Connection's idle_since while a request is read, handled or answered (or a TLS handshake runs).
constexpr int64_t kBusy = 0;
// A Connection's idle_since once chosen to be closed to make room for another.
constexpr int64_t kChosenToClose = -1;

// Now in steady-clock nanoseconds, plus `later`; never kBusy or kChosenToClose.
int64_t SteadyNanos(SteadyClock::duration later = SteadyClock::duration::zero()) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>((SteadyClock::now() + later).time_since_epoch())
             .count() |
         1;
}

// One accepted connection from accept to close, whichever session serves it (the session that
// tells TLS from plain HTTP hands it on to an HTTPS or an HTTP one).
struct Connection {
  explicit Connection(uint64_t connection_id) : id(connection_id) {}
  const uint64_t id;
  // Steady-clock nanoseconds (> 0) since which the connection waits for the first byte of a
  // request (for a connection that has had no request yet: kNewConnectionGrace later than that),
  // kBusy or kChosenToClose. Written by the connection's strand, and by the acceptor when it
  // chooses the connection (compare-and-swap from a time to kChosenToClose).
  std::atomic<int64_t> idle_since{SteadyNanos(kNewConnectionGrace)};
  std::weak_ptr<SessionControl> session;  // guarded by ConnectionRegistry::mu_
};

// Every open connection: counted from accept until its socket is closed and its session gone,
// which is when its descriptor is free again.
class ConnectionRegistry {
 public:
  // A connection's place in the registry: it leaves it when the ticket is destroyed, with the last
  // session that served it (after the socket, which the session's stream closes as it goes).
  class Ticket {
   public:
    Ticket() = default;
    Ticket(std::shared_ptr<ConnectionRegistry> registry, std::shared_ptr<Connection> connection)
        : registry_(std::move(registry)), connection_(std::move(connection)) {}
    Ticket(Ticket&&) noexcept = default;
    Ticket& operator=(Ticket&&) = delete;
    ~Ticket() {
      if (registry_) registry_->Remove(connection_->id);
    }

    // Names the session now serving the connection (what the registry closes when it is chosen).
    void Bind(std::weak_ptr<SessionControl> session) { registry_->Bind(*connection_, std::move(session)); }
    // The connection now waits for a request's first byte (unless already chosen to close);
    // `first` when it has had no request yet.
    void MarkIdle(bool first) {
      int64_t since = SteadyNanos(first ? SteadyClock::duration(kNewConnectionGrace) : SteadyClock::duration::zero());
      int64_t seen = connection_->idle_since.load(std::memory_order_relaxed);
      while (seen != kChosenToClose && !connection_->idle_since.compare_exchange_weak(seen, since)) {
      }
    }
    // A request (or TLS handshake) is under way (unless already chosen to close).
    void MarkBusy() {
      int64_t seen = connection_->idle_since.load(std::memory_order_relaxed);
      while (seen != kChosenToClose && seen != kBusy && !connection_->idle_since.compare_exchange_weak(seen, kBusy)) {
      }
    }
    bool ChosenToClose() const { return connection_->idle_since.load(std::memory_order_relaxed) == kChosenToClose; }

   private:
    std::shared_ptr<ConnectionRegistry> registry_;
    std::shared_ptr<Connection> connection_;
  };

  static Ticket Add(const std::shared_ptr<ConnectionRegistry>& registry) {
    std::lock_guard<std::mutex> lock(registry->mu_);
    auto connection = std::make_shared<Connection>(registry->next_id_++);
    registry->live_.emplace(connection->id, connection);
    return Ticket(registry, std::move(connection));
  }

  size_t Count() const {
    std::lock_guard<std::mutex> lock(mu_);
    return live_.size();
  }

  // Chooses the connection that has waited longest for a request and closes it (it leaves the
  // registry once its session is gone). False when every connection is in a request (or new).
  bool CloseIdlest() {
    std::shared_ptr<SessionControl> chosen;
    {
      std::lock_guard<std::mutex> lock(mu_);
      int64_t now = SteadyNanos();
      for (int attempt = 0; attempt < 3 && !chosen; ++attempt) {
        Connection* idlest = nullptr;
        int64_t idlest_since = 0;
        for (const auto& [id, connection] : live_) {
          int64_t since = connection->idle_since.load(std::memory_order_relaxed);
          if (since > 0 && since <= now && (idlest == nullptr || since < idlest_since)) {
            idlest = connection.get();
            idlest_since = since;
          }
        }
        if (idlest == nullptr) return false;
        // It may have become busy meanwhile: then look again.
        if (!idlest->idle_since.compare_exchange_strong(idlest_since, kChosenToClose)) continue;
        chosen = idlest->session.lock();
        if (!chosen) return true;  // its session is going: the connection is closing already
      }
    }
    if (!chosen) return false;
    chosen->CloseWhenIdle();
    return true;  // `chosen` goes here, outside mu_ (its last reference may remove it)
  }

  // Once: `on_room` runs (under the registry's lock: it must be quick, and not call back) when the
  // next connection leaves. Used by the acceptor, out of descriptors, to resume at once.
  void CallWhenRoom() { room_wanted_.store(true, std::memory_order_release); }
  void SetOnRoom(std::function<void()> on_room) {
    std::lock_guard<std::mutex> lock(mu_);
    on_room_ = std::move(on_room);
  }

  std::vector<std::shared_ptr<SessionControl>> Sessions() const {
    std::vector<std::shared_ptr<SessionControl>> sessions;
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, connection] : live_) {
      if (auto session = connection->session.lock()) sessions.push_back(std::move(session));
    }
    return sessions;
  }

 private:
  void Bind(Connection& connection, std::weak_ptr<SessionControl> session) {
    std::lock_guard<std::mutex> lock(mu_);
    connection.session = std::move(session);
  }
  void Remove(uint64_t id) {
    std::lock_guard<std::mutex> lock(mu_);
    live_.erase(id);
    if (room_wanted_.load(std::memory_order_acquire) && room_wanted_.exchange(false) && on_room_) on_room_();
  }

  mutable std::mutex mu_;
  std::atomic<bool> room_wanted_{false};
  std::function<void()> on_room_;                                         // guarded by mu_
  uint64_t next_id_ = 1;                                                  // guarded by mu_
  std::unordered_map<uint64_t, std::shared_ptr<Connection>> live_;        // guarded by mu_
};
using ConnectionTicket = ConnectionRegistry::Ticket;

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
  ServerState(const ServerOptions& o, const RequestHandler& h, int query_threads)
      : options(o), handler(h), queries(query_threads), writes(h) {}

  const ServerOptions& options;  // the timeouts
  const RequestHandler& handler;
  net::thread_pool queries;  // runs queries, which may take long, off the I/O threads
  WriteBatcher writes;       // runs every other request that is not a GET or HEAD
  std::atomic<bool> stopping{false};
  // Shared with every connection's ticket, which may outlive this state when a shutdown abandons
  // requests still running after its grace period.
  std::shared_ptr<ConnectionRegistry> connections = std::make_shared<ConnectionRegistry>();

  void CloseAll() {
    for (auto& session : connections->Sessions()) session->CloseWhenIdle();
  }

  // How long `bytes` of a body or a response may take to cross: body_timeout, plus 1 s for every
  // min_bytes_per_second.
  SteadyClock::duration TransferAllowance(size_t bytes) const {
    size_t rate = std::max<size_t>(1, options.min_bytes_per_second);
    return options.body_timeout + std::chrono::milliseconds(static_cast<int64_t>(bytes / rate * 1000 +
                                                                                 bytes % rate * 1000 / rate));
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
//
// Reading a request has three phases, each under a deadline of its own (ServerOptions), so that a
// client sending a byte a second holds nothing but its own connection, and only for a while:
// waiting for the first byte (idle_timeout), the header block (header_timeout from the first
// byte), the body (body_timeout from the end of the headers, plus 1 s for every
// min_bytes_per_second received). Reads are asynchronous: a slow client holds no thread; the
// parser only ever sees what has arrived. The stream's timer closes the socket when a deadline
// passes.
template <class Derived>
class HttpSession : public SessionControl {
 public:
  void CloseWhenIdle() override {
    net::post(Self().stream().get_executor(), [self = Self().shared_from_this()] {
      if (self->phase_ == Phase::kIdle) {
        self->DoClose();
      } else {
        self->close_after_response_ = true;
      }
    });
  }

 protected:
  HttpSession(ServerState& state, ConnectionTicket ticket, beast::flat_buffer buffer, bool secure)
      : ticket_(std::move(ticket)), state_(state), buffer_(std::move(buffer)), secure_(secure) {}

  Derived& Self() { return static_cast<Derived&>(*this); }
  auto& Lowest() { return beast::get_lowest_layer(Self().stream()); }

  void DoRead() {
    if (state_.stopping || close_after_response_ || ticket_.ChosenToClose()) return Self().DoClose();
    parser_.emplace();
    parser_->body_limit(kMaxRequestBodyBytes);
    parser_->header_limit(kMaxRequestHeaderBytes);
    if (buffer_.size() == 0) {
      phase_ = Phase::kIdle;
      ticket_.MarkIdle(/*first=*/!answered_any_);
      Lowest().expires_after(state_.options.idle_timeout);
    }
    ParseAndRead();  // a pipelined request may be buffered already
  }

  void Send(HttpResponse response, unsigned version, bool close) {
    phase_ = Phase::kBusy;
    answered_any_ = true;
    close = close || state_.stopping || close_after_response_;
    auto& message = response_.emplace(static_cast<http::status>(response.status), version);
    for (auto& [name, value] : response.headers) message.insert(name, value);
    message.body() = std::move(response.body);
    message.keep_alive(!close);
    message.prepare_payload();
    // The client must take the answer as fast as a request body must come.
    Lowest().expires_after(state_.TransferAllowance(message.body().size()));
    http::async_write(Self().stream(), message,
                      beast::bind_front_handler(&HttpSession::OnWrite, Self().shared_from_this(), close));
  }

  void OnWrite(bool close, beast::error_code ec, std::size_t) {
    response_.reset();
    if (ec || close) return Self().DoClose();
    DoRead();
  }

  // Declared first: it leaves the registry last, after the derived session's stream closed.
  ConnectionTicket ticket_;
  ServerState& state_;
  beast::flat_buffer buffer_;
  bool secure_;

 private:
  enum class Phase {
    kIdle,    // waiting for a request's first byte
    kHeader,  // reading its header block
    kBody,    // reading its body
    kBusy,    // handling or answering it
  };

  // Parses what the buffer holds; unless that completes the request (or fails it), reads more
  // under the deadline of the phase it is in.
  void ParseAndRead() {
    while (buffer_.size() > 0) {
      if (phase_ == Phase::kIdle || phase_ == Phase::kBusy) {
        phase_ = Phase::kHeader;
        ticket_.MarkBusy();
        header_deadline_ = SteadyClock::now() + state_.options.header_timeout;
      }
      bool in_body = phase_ == Phase::kBody;
      beast::error_code ec;
      size_t used = parser_->put(buffer_.data(), ec);
      buffer_.consume(used);
      if (in_body) body_received_ += used;
      if (ec == http::error::need_more) break;
      if (ec) return OnRead(ec);
      if (parser_->is_done()) return OnRead({});
      if (!in_body && parser_->is_header_done()) {
        phase_ = Phase::kBody;
        body_started_ = SteadyClock::now();
        body_received_ = 0;
      }
      if (used == 0) break;
    }
    if (phase_ == Phase::kHeader) {
      Lowest().expires_at(header_deadline_);
    } else if (phase_ == Phase::kBody) {
      // Received bytes buy time as they come: a client at 1 byte a second has body_timeout.
      Lowest().expires_at(body_started_ + state_.TransferAllowance(body_received_));
    }
    Self().stream().async_read_some(buffer_.prepare(beast::read_size(buffer_, 65536)),
                                    beast::bind_front_handler(&HttpSession::OnReadSome, Self().shared_from_this()));
  }

  void OnReadSome(beast::error_code ec, std::size_t bytes) {
    buffer_.commit(bytes);
    if (ec) return OnRead(ec);  // the end of the stream, a deadline passed, a reset, a shutdown
    ParseAndRead();
  }

  void OnRead(beast::error_code ec) {
    Phase phase = phase_;
    phase_ = Phase::kBusy;
    if (ec == http::error::body_limit) {
      return Send(TransportError(Status::RequestEntityTooLarge("Request size is too large")), 11, true);
    }
    if (ec == http::error::header_limit) {
      return Send(TransportError(Status::BadRequest("The request headers are too large.")), 11, true);
    }
    if (ec && ec.category() == http::make_error_code(http::error::bad_target).category()) {
      return Send(TransportError(Status::BadRequest("Malformed HTTP request: " + ec.message())), 11, true);
    }
    if (ec == beast::error::timeout && phase != Phase::kIdle) {
      spdlog::debug("closing a connection: its request's {} did not arrive in time",
                    phase == Phase::kHeader ? "headers" : "body");
    }
    if (ec) return Self().DoClose();  // end of stream, timeout, reset or shutdown

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

  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::string_body>> response_;
  Phase phase_ = Phase::kBusy;         // strand only
  bool close_after_response_ = false;  // shutdown or the cap asked while busy (strand only)
  bool answered_any_ = false;          // strand only
  SteadyClock::time_point header_deadline_;
  SteadyClock::time_point body_started_;
  size_t body_received_ = 0;
};

class PlainSession : public HttpSession<PlainSession>,
                     public std::enable_shared_from_this<PlainSession> {
 public:
  PlainSession(ServerState& state, ConnectionTicket ticket, beast::tcp_stream&& stream, beast::flat_buffer buffer)
      : HttpSession(state, std::move(ticket), std::move(buffer), false), stream_(std::move(stream)) {}

  beast::tcp_stream& stream() { return stream_; }
  void Start() {
    ticket_.Bind(weak_from_this());
    DoRead();
  }
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
  TlsSession(ServerState& state, ConnectionTicket ticket, beast::tcp_stream&& stream, ssl::context& context,
             beast::flat_buffer buffer)
      : HttpSession(state, std::move(ticket), std::move(buffer), true), stream_(std::move(stream), context) {}

  beast::ssl_stream<beast::tcp_stream>& stream() { return stream_; }

  // The handshake must end by `deadline` (tls_handshake_timeout from the connection's first byte).
  void Start(SteadyClock::time_point deadline) {
    ticket_.Bind(weak_from_this());
    beast::get_lowest_layer(stream_).expires_at(deadline);
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

// Waits for a connection's first bytes (idle_timeout) and tells a TLS handshake from plain HTTP.
class DetectSession : public SessionControl, public std::enable_shared_from_this<DetectSession> {
 public:
  DetectSession(ServerState& state, ConnectionTicket ticket, tcp::socket&& socket, ssl::context& context)
      : ticket_(std::move(ticket)), state_(state), stream_(std::move(socket)), context_(context) {}

  void CloseWhenIdle() override {
    net::post(stream_.get_executor(), [self = shared_from_this()] {
      if (self->waiting_) self->stream_.cancel();
    });
  }

  void Start() {
    ticket_.Bind(weak_from_this());
    waiting_ = true;
    stream_.expires_after(state_.options.idle_timeout);
    stream_.async_read_some(buffer_.prepare(beast::read_size(buffer_, 65536)),
                            beast::bind_front_handler(&DetectSession::OnFirstBytes, shared_from_this()));
  }

 private:
  void OnFirstBytes(beast::error_code ec, std::size_t bytes) {
    waiting_ = false;
    if (ec) return;  // the socket closes with this session
    buffer_.commit(bytes);
    ticket_.MarkBusy();
    // Telling TLS takes at most 9 bytes; the handshake that follows must end by the same deadline.
    handshake_deadline_ = SteadyClock::now() + state_.options.tls_handshake_timeout;
    stream_.expires_at(handshake_deadline_);
    beast::async_detect_ssl(stream_, buffer_, beast::bind_front_handler(&DetectSession::OnDetect, shared_from_this()));
  }

  void OnDetect(beast::error_code ec, bool is_tls) {
    if (ec) return;
    if (is_tls) {
      std::make_shared<TlsSession>(state_, std::move(ticket_), std::move(stream_), context_, std::move(buffer_))
          ->Start(handshake_deadline_);
    } else {
      std::make_shared<PlainSession>(state_, std::move(ticket_), std::move(stream_), std::move(buffer_))->Start();
    }
  }

  ConnectionTicket ticket_;  // first: leaves the registry after the stream closed
  ServerState& state_;
  beast::tcp_stream stream_;
  ssl::context& context_;
  beast::flat_buffer buffer_;
  bool waiting_ = false;  // for the first bytes (strand only)
  SteadyClock::time_point handshake_deadline_;
};

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
    state_.queries.join();
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
    if (options_.certificate_pem.empty()) {
      std::make_shared<PlainSession>(state_, std::move(ticket), beast::tcp_stream(std::move(socket)),
                                     beast::flat_buffer())
          ->Start();
    } else {
      std::make_shared<DetectSession>(state_, std::move(ticket), std::move(socket), tls_context_)->Start();
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
