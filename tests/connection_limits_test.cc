// Connection-level limits over real sockets: the connection cap (the idlest idle connection makes
// room), the idle, header, body and TLS handshake deadlines (a client trickling bytes is closed and
// holds no thread meanwhile), the descriptor limit and its derived cap, and the shutdown hook.
// The deadlines are ServerOptions fields; the tests shorten them.
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <thread>

#include "server/http_server.h"
#include "server/tls_certificate.h"
#include "tests/listening_server.h"
#include "tests/test_support.h"

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {


// A server on a free port with the options `configure` sets, run on a background thread.
class Server : public cosmos::testing::ListeningServer {
 public:
  explicit Server(const Configure& configure, bool tls = false)
      : ListeningServer(tls, [&configure](cosmos::server::ServerOptions& options) {
          options.threads = 1;  // one I/O thread: a client that held it would stall everyone
          configure(options);
        }) {}

  // Waits until the server counts `count` connections; false after 5 s.
  bool AwaitConnections(size_t count) {
    for (auto deadline = Clock::now() + 5s; Clock::now() < deadline; std::this_thread::sleep_for(5ms)) {
      if (http().ConnectionCount() == count) return true;
    }
    return http().ConnectionCount() == count;
  }
};

// A client connection with blocking sends and a few helpers.
class Client {
 public:
  explicit Client(unsigned short port) : stream_(ioc_) {
    stream_.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  }

  // GET `target` and read the answer (each within 5 s); the status, or 0 when the exchange failed.
  int Get(const std::string& target = "/alive") {
    http::request<http::string_body> request{http::verb::get, target, 11};
    request.set(http::field::host, "127.0.0.1");
    request.prepare_payload();
    beast::error_code ec;
    stream_.expires_after(5s);
    http::write(stream_, request, ec);
    return ec ? 0 : Read();
  }

  // Reads one answer (within 5 s); its status, or 0 when none came.
  int Read() {
    beast::error_code ec;
    stream_.expires_after(5s);
    http::response<http::string_body> response;
    http::read(stream_, buffer_, response, ec);
    return ec ? 0 : response.result_int();
  }

  // Sends raw bytes; false when the connection no longer takes them.
  bool Send(const std::string& bytes) {
    return ::send(fd(), bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
  }

  // Whether the server closed (or reset) the connection, without waiting.
  bool ClosedByServer() { return AwaitClose(0ms); }

  // Waits up to `timeout` for the server to close the connection; true if it did.
  bool AwaitClose(std::chrono::milliseconds timeout) {
    pollfd entry{fd(), POLLIN, 0};
    if (::poll(&entry, 1, static_cast<int>(timeout.count())) <= 0) return false;
    char byte;
    ssize_t got = ::recv(fd(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
  }

 private:
  int fd() { return stream_.socket().native_handle(); }

  net::io_context ioc_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
};

double Seconds(Clock::duration duration) { return std::chrono::duration<double>(duration).count(); }

// Sends `bytes` one every `pause` until the server closes the connection or they run out; the
// time from the first byte to the close, or nullopt when the connection stayed open.
std::optional<Clock::duration> Trickle(Client& client, const std::string& bytes, std::chrono::milliseconds pause) {
  auto first = Clock::now();
  for (char byte : bytes) {
    if (!client.Send(std::string(1, byte))) return Clock::now() - first;
    if (client.AwaitClose(pause)) return Clock::now() - first;
  }
  return std::nullopt;
}

// Runs GET /alive on a connection of its own, one after another, until stopped; counts the
// failures and keeps the slowest answer.
class Prober {
 public:
  explicit Prober(unsigned short port)
      : thread_([this, port] {
          Client client(port);
          while (!stop_) {
            auto started = Clock::now();
            if (client.Get() == 200) {
              ++answered_;
            } else {
              ++failed_;
            }
            slowest_ = std::max(slowest_.load(), Clock::now() - started);
            std::this_thread::sleep_for(20ms);
          }
        }) {}
  ~Prober() { Stop(); }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  int answered() const { return answered_; }
  int failed() const { return failed_; }
  Clock::duration slowest() const { return slowest_; }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<int> answered_{0};
  std::atomic<int> failed_{0};
  std::atomic<Clock::duration> slowest_{Clock::duration::zero()};
  std::thread thread_;
};

}  // namespace

TEST_CASE("connections: the cap admits a newcomer by closing the idlest idle connection", "[http][connections]") {
  Server server([](auto& options) { options.max_connections = 4; });
  CHECK(server.http().MaxConnections() == 4);
  std::vector<std::unique_ptr<Client>> clients;
  for (int index = 0; index < 4; ++index) {
    clients.push_back(std::make_unique<Client>(server.port()));
    REQUIRE(clients.back()->Get() == 200);  // each now waits between requests, the first the longest
    std::this_thread::sleep_for(20ms);
  }
  REQUIRE(server.AwaitConnections(4));

  Client newcomer(server.port());
  CHECK(newcomer.Get() == 200);
  CHECK(clients[0]->AwaitClose(2000ms));  // the idlest made room
  for (int index = 1; index < 4; ++index) {
    INFO("connection " << index);
    CHECK_FALSE(clients[index]->ClosedByServer());
    CHECK(clients[index]->Get() == 200);
  }
  CHECK(server.AwaitConnections(4));

  // The next newcomer closes the connection idle longest now: the first newcomer's.
  Client second(server.port());
  CHECK(second.Get() == 200);
  CHECK(newcomer.AwaitClose(2000ms));
  CHECK(server.AwaitConnections(4));
}

TEST_CASE("connections: with TLS on, the cap closes the idlest idle connection too", "[http][connections]") {
  Server server([](auto& options) { options.max_connections = 2; }, /*tls=*/true);
  net::io_context ioc;
  net::ssl::context context(net::ssl::context::tls_client);
  context.set_verify_mode(net::ssl::verify_none);
  auto open = [&] {
    auto stream = std::make_unique<beast::ssl_stream<beast::tcp_stream>>(ioc, context);
    beast::get_lowest_layer(*stream).connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), server.port()));
    stream->handshake(net::ssl::stream_base::client);
    return stream;
  };
  auto get = [](beast::ssl_stream<beast::tcp_stream>& stream) -> int {
    http::request<http::string_body> request{http::verb::get, "/alive", 11};
    request.set(http::field::host, "127.0.0.1");
    beast::error_code ec;
    http::write(stream, request, ec);
    if (ec) return 0;
    beast::flat_buffer buffer;
    http::response<http::string_body> response;
    http::read(stream, buffer, response, ec);
    return ec ? 0 : response.result_int();
  };
  auto first = open();
  REQUIRE(get(*first) == 200);
  std::this_thread::sleep_for(20ms);
  auto second = open();
  REQUIRE(get(*second) == 200);
  REQUIRE(server.AwaitConnections(2));

  auto started = Clock::now();
  auto newcomer = open();
  CHECK(get(*newcomer) == 200);
  // The idlest gets the server's close_notify: its next read ends.
  beast::get_lowest_layer(*first).expires_after(5s);
  beast::flat_buffer buffer;
  http::response<http::string_body> response;
  beast::error_code ec;
  http::read(*first, buffer, response, ec);
  CHECK(ec);
  CHECK(ec != beast::error::timeout);
  // Answering close_notify with its own lets the server close at once.
  beast::get_lowest_layer(*first).expires_after(5s);
  first->shutdown(ec);
  CHECK(server.AwaitConnections(2));
  CHECK(Seconds(Clock::now() - started) < 2.0);
  CHECK(get(*second) == 200);
}

TEST_CASE("connections: at the cap with every connection in a request, a newcomer is refused at once",
          "[http][connections]") {
  Server server([](auto& options) { options.max_connections = 2; });
  Client first(server.port());
  Client second(server.port());
  // Both in the middle of their headers: neither is idle.
  REQUIRE(first.Send("GET /alive HTTP/1.1\r\nHost: x\r\n"));
  REQUIRE(second.Send("GET /alive HTTP/1.1\r\nHost: x\r\n"));
  REQUIRE(server.AwaitConnections(2));
  std::this_thread::sleep_for(100ms);

  auto started = Clock::now();
  Client refused(server.port());
  CHECK(refused.AwaitClose(2000ms));
  CHECK(Seconds(Clock::now() - started) < 1.5);
  CHECK(server.http().ConnectionCount() == 2);

  // The busy ones are served as usual, and once one is idle a newcomer may take its place.
  REQUIRE(first.Send("\r\n"));
  CHECK(first.Read() == 200);
  Client later(server.port());
  CHECK(later.Get() == 200);
}

TEST_CASE("connections: a new connection may be closed to make room only after a second without a request",
          "[http][connections]") {
  Server server([](auto& options) { options.max_connections = 1; });
  Client quiet(server.port());  // connected, its request not sent yet
  REQUIRE(server.AwaitConnections(1));
  Client early(server.port());
  CHECK(early.AwaitClose(2000ms));  // refused: the quiet one may still be about to send
  CHECK_FALSE(quiet.ClosedByServer());
  std::this_thread::sleep_for(1100ms);
  Client late(server.port());
  CHECK(late.Get() == 200);
  CHECK(quiet.AwaitClose(2000ms));
}

TEST_CASE("connections: the count follows connections as they open and close", "[http][connections]") {
  Server server([](auto&) {});
  CHECK(server.http().MaxConnections() ==
        cosmos::server::DefaultMaxConnections(cosmos::server::CurrentDescriptorLimit(), 1, 4));
  {
    Client a(server.port());
    Client b(server.port());
    Client c(server.port());
    CHECK(a.Get() == 200);
    CHECK(server.AwaitConnections(3));
  }
  CHECK(server.AwaitConnections(0));
}

TEST_CASE("connections: a header trickled a byte every 100 ms is closed at its deadline while others are served",
          "[http][connections]") {
  Server server([](auto& options) { options.header_timeout = 500ms; });
  Prober prober(server.port());
  Client slow(server.port());
  std::string head = "GET /alive HTTP/1.1\r\nHost: 127.0.0.1\r\nx-ms-padding: " + std::string(40, 'x') + "\r\n\r\n";
  auto closed_after = Trickle(slow, head, 100ms);  // would take 7 s to finish
  REQUIRE(closed_after);
  CHECK(Seconds(*closed_after) >= 0.4);
  CHECK(Seconds(*closed_after) < 2.0);
  std::this_thread::sleep_for(100ms);
  prober.Stop();
  CHECK(prober.failed() == 0);
  CHECK(prober.answered() > 5);
  CHECK(Seconds(prober.slowest()) < 1.0);  // a held I/O thread would stall it for seconds
}

TEST_CASE("connections: a body trickled a byte every 100 ms is closed at its deadline", "[http][connections]") {
  Server server([](auto& options) { options.body_timeout = 500ms; });
  Prober prober(server.port());
  Client slow(server.port());
  REQUIRE(slow.Send("POST /dbs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    "Content-Length: 100\r\n\r\n"));
  auto closed_after = Trickle(slow, std::string(100, ' '), 100ms);  // would take 10 s
  REQUIRE(closed_after);
  CHECK(Seconds(*closed_after) >= 0.4);
  CHECK(Seconds(*closed_after) < 2.0);
  prober.Stop();
  CHECK(prober.failed() == 0);
  CHECK(prober.answered() > 5);
}

TEST_CASE("connections: a body that keeps the minimum rate is read whole", "[http][connections]") {
  // 1 KB a second after a 300 ms allowance: 2 KB sent in 4 pieces over 1.2 s keeps ahead of it.
  Server server([](auto& options) {
    options.body_timeout = 300ms;
    options.min_bytes_per_second = 1024;
  });
  Client client(server.port());
  std::string body = R"({"id":")" + std::string(2000, 'a') + R"("})";
  REQUIRE(client.Send("POST /dbs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
                      std::to_string(body.size()) + "\r\n\r\n"));
  for (size_t offset = 0; offset < body.size(); offset += 520) {
    REQUIRE(client.Send(body.substr(offset, 520)));
    std::this_thread::sleep_for(300ms);
  }
  // Unsigned, so 401: what matters is that the request was read whole and answered.
  CHECK(client.Read() == 401);
  CHECK(client.Get() == 200);
}

TEST_CASE("connections: a connection waiting for its first or next request is closed after the idle timeout",
          "[http][connections]") {
  Server server([](auto& options) { options.idle_timeout = 300ms; });
  Client fresh(server.port());  // never sends
  Client kept(server.port());
  REQUIRE(kept.Get() == 200);
  auto started = Clock::now();
  CHECK(fresh.AwaitClose(2000ms));
  CHECK(kept.AwaitClose(2000ms));
  CHECK(Seconds(Clock::now() - started) < 1.5);
  CHECK(server.AwaitConnections(0));
}

TEST_CASE("connections: with TLS on, a handshake must end within its timeout of the first byte",
          "[http][connections]") {
  Server server([](auto& options) { options.tls_handshake_timeout = 300ms; }, /*tls=*/true);
  Client stalled(server.port());
  Client quiet(server.port());  // sends nothing: an idle connection, under the idle timeout
  REQUIRE(stalled.Send(std::string("\x16\x03\x01\x00\xc8\x01\x00", 7)));  // the start of a ClientHello
  auto started = Clock::now();
  CHECK(stalled.AwaitClose(2000ms));
  CHECK(Seconds(Clock::now() - started) < 1.5);
  CHECK_FALSE(quiet.ClosedByServer());
  // A real handshake still succeeds.
  net::io_context ioc;
  net::ssl::context context(net::ssl::context::tls_client);
  context.set_verify_mode(net::ssl::verify_none);
  beast::ssl_stream<beast::tcp_stream> tls(ioc, context);
  beast::get_lowest_layer(tls).connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), server.port()));
  tls.handshake(net::ssl::stream_base::client);
  http::request<http::string_body> request{http::verb::get, "/alive", 11};
  request.set(http::field::host, "127.0.0.1");
  http::write(tls, request);
  beast::flat_buffer buffer;
  http::response<http::string_body> response;
  http::read(tls, buffer, response);
  CHECK(response.result_int() == 200);
}

TEST_CASE("connections: the shutdown hook runs once, on the thread calling Shutdown, as it begins",
          "[http][connections]") {
  std::atomic<int> calls{0};
  std::thread::id caller;
  std::atomic<size_t> connections_then{0};
  cosmos::server::HttpServer* http = nullptr;
  Server server([&](auto& options) {
    options.on_shutdown = [&] {
      ++calls;
      caller = std::this_thread::get_id();
      connections_then = http->ConnectionCount();
    };
  });
  http = &server.http();
  Client open(server.port());
  REQUIRE(open.Get() == 200);
  REQUIRE(server.AwaitConnections(1));
  server.http().Shutdown();
  server.http().Shutdown();
  CHECK(calls == 1);
  CHECK(caller == std::this_thread::get_id());
  CHECK(connections_then == 1);  // before the idle connection was closed
}

TEST_CASE("connections: the default cap leaves descriptors for the rest of the process", "[connections]") {
  using cosmos::server::DefaultMaxConnections;
  CHECK(DefaultMaxConnections(1024, 2, 4) == 1024 - 88);
  CHECK(DefaultMaxConnections(uint64_t{1} << 20, 2, 4) == 10000);
  CHECK(DefaultMaxConnections(UINT64_MAX, 2, 4) == 10000);
  CHECK(DefaultMaxConnections(64, 2, 4) == 32);
  CHECK(DefaultMaxConnections(1, 2, 4) == 1);
}

TEST_CASE("connections: the descriptor soft limit is raised to the hard limit", "[connections]") {
  rlimit limit{};
  REQUIRE(getrlimit(RLIMIT_NOFILE, &limit) == 0);
  cosmos::server::DescriptorLimit raised = cosmos::server::RaiseDescriptorLimit();
  CHECK(raised.before == (limit.rlim_cur == RLIM_INFINITY ? UINT64_MAX : limit.rlim_cur));
  REQUIRE(getrlimit(RLIMIT_NOFILE, &limit) == 0);
  CHECK(raised.now == (limit.rlim_cur == RLIM_INFINITY ? UINT64_MAX : limit.rlim_cur));
  if (limit.rlim_max != RLIM_INFINITY) CHECK(limit.rlim_cur == limit.rlim_max);
}
