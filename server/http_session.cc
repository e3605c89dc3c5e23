#include "server/http_session.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/core/detect_ssl.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include <spdlog/spdlog.h>

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
// While the server stops, a TLS close sends close_notify but hardly waits for the client's: an idle
// keep-alive client answers only when it next reads, and the process should not wait for that.
constexpr auto kTlsShutdownTimeoutWhileStopping = std::chrono::milliseconds(200);

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
        // Ends the pending read, whose completion closes the connection (OnRead): a TLS close
        // must not run beside a read still pending on the same stream.
        beast::error_code ignored;
        self->Lowest().socket().cancel(ignored);
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
    state_.queries.Post([self = Self().shared_from_this(), request = std::move(request),
                         answer = std::move(answer)]() mutable { answer(self->state_.handler.Handle(request)); });
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
    beast::get_lowest_layer(stream_).expires_after(state_.stopping ? kTlsShutdownTimeoutWhileStopping
                                                                   : kTlsShutdownTimeout);
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

}  // namespace

void ServeConnection(ServerState& state, ConnectionTicket ticket, tcp::socket&& socket, ssl::context* tls_context) {
  if (tls_context == nullptr) {
    std::make_shared<PlainSession>(state, std::move(ticket), beast::tcp_stream(std::move(socket)), beast::flat_buffer())
        ->Start();
  } else {
    std::make_shared<DetectSession>(state, std::move(ticket), std::move(socket), *tls_context)->Start();
  }
}

}  // namespace cosmos::server
