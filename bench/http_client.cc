#include "bench/http_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <limits>

namespace cosmos::bench {

std::unique_ptr<net::ssl::context> MakeClientTlsContext() {
  auto context = std::make_unique<net::ssl::context>(net::ssl::context::tls_client);
  context->set_verify_mode(net::ssl::verify_none);
  return context;
}

tcp::endpoint ResolveTarget(const Target& target) {
  net::io_context io;
  tcp::resolver resolver(io);
  auto results = resolver.resolve(target.host, std::to_string(target.port));
  return results.begin()->endpoint();
}

AsyncConnection::AsyncConnection(net::io_context& io, tcp::endpoint endpoint, net::ssl::context* tls_context,
                                 std::chrono::milliseconds timeout)
    : io_(io), endpoint_(endpoint), tls_context_(tls_context), timeout_(timeout) {}

beast::tcp_stream& AsyncConnection::Lowest() { return tls_ ? tls_->next_layer() : *plain_; }

void AsyncConnection::Send(Request request, Handler handler) {
  request_ = std::move(request);
  handler_ = std::move(handler);
  if (connected_) return Write();
  Connect();
}

void AsyncConnection::Close() {
  if (!plain_ && !tls_) return;
  beast::error_code ignored;
  Lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
  Lowest().socket().close(ignored);
  connected_ = false;
}

void AsyncConnection::Connect() {
  Close();
  buffer_.clear();
  plain_.reset();
  tls_.reset();
  if (tls_context_ != nullptr) {
    tls_.emplace(io_, *tls_context_);
  } else {
    plain_.emplace(io_);
  }
  Lowest().expires_after(timeout_);
  Lowest().async_connect(endpoint_, [this](beast::error_code ec) {
    if (ec) return Finish(ec);
    Lowest().socket().set_option(tcp::no_delay(true), ec);
    if (!tls_) {
      connected_ = true;
      return Write();
    }
    tls_->async_handshake(net::ssl::stream_base::client, [this](beast::error_code handshake_ec) {
      if (handshake_ec) return Finish(handshake_ec);
      connected_ = true;
      Write();
    });
  });
}

void AsyncConnection::Write() {
  Lowest().expires_after(timeout_);
  auto on_write = [this](beast::error_code ec, size_t) {
    if (ec) return Finish(ec);
    Read();
  };
  if (tls_) {
    http::async_write(*tls_, request_, on_write);
  } else {
    http::async_write(*plain_, request_, on_write);
  }
}

void AsyncConnection::Read() {
  parser_.emplace();
  parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
  parser_->header_limit(1024 * 1024);
  auto on_read = [this](beast::error_code ec, size_t) { Finish(ec); };
  if (tls_) {
    http::async_read(*tls_, buffer_, *parser_, on_read);
  } else {
    http::async_read(*plain_, buffer_, *parser_, on_read);
  }
}

void AsyncConnection::Finish(beast::error_code ec) {
  Response response;
  if (ec) {
    Close();
  } else {
    response = parser_->release();
    if (!response.keep_alive()) Close();
  }
  parser_.reset();
  Handler handler = std::move(handler_);
  handler_ = nullptr;
  handler(ec, std::move(response));
}

SyncClient::SyncClient(const Target& target, net::ssl::context* tls_context, std::chrono::milliseconds timeout)
    : connection_(io_, ResolveTarget(target), tls_context, timeout) {}

beast::error_code SyncClient::Send(Request request, Response& response) {
  beast::error_code result;
  connection_.Send(std::move(request), [&](beast::error_code ec, Response&& answer) {
    result = ec;
    response = std::move(answer);
  });
  io_.restart();
  io_.run();
  return result;
}

}  // namespace cosmos::bench
