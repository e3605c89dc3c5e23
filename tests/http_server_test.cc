// The HTTP layer over a real socket: keep-alive, TLS and plain HTTP on one port, limits, shutdown.
#include "server/http_server.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <thread>

#include "server/tls_certificate.h"
#include "tests/listening_server.h"
#include "tests/test_support.h"

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {

using RunningServer = cosmos::testing::ListeningServer;

http::response<http::string_body> Exchange(beast::tcp_stream& stream, http::request<http::string_body>& request) {
  request.prepare_payload();
  http::write(stream, request);
  beast::flat_buffer buffer;
  http::response<http::string_body> response;
  http::read(stream, buffer, response);
  return response;
}

http::request<http::string_body> Get(const std::string& target) {
  http::request<http::string_body> request{http::verb::get, target, 11};
  request.set(http::field::host, "127.0.0.1");
  return request;
}

}  // namespace

TEST_CASE("plain HTTP keeps the connection alive across requests", "[http]") {
  RunningServer server(/*tls=*/false);
  net::io_context ioc;
  beast::tcp_stream stream(ioc);
  stream.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), server.port()));
  for (int round = 0; round < 3; ++round) {
    auto request = Get("/alive");
    auto response = Exchange(stream, request);
    CHECK(response.result_int() == 200);
    CHECK(response.keep_alive());
  }
  auto unsigned_request = Get("/dbs");
  auto refused = Exchange(stream, unsigned_request);
  CHECK(refused.result_int() == 401);
  CHECK(refused[http::field::content_type] == "application/json");
}

TEST_CASE("oversized headers and bodies get Cosmos-shaped errors", "[http]") {
  RunningServer server(/*tls=*/false);
  net::io_context ioc;
  SECTION("headers over 64 KB") {
    beast::tcp_stream stream(ioc);
    stream.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), server.port()));
    std::string head = "GET /dbs HTTP/1.1\r\nHost: x\r\n";
    for (int index = 0; index < 10; ++index) {
      head += "x-ms-padding-" + std::to_string(index) + ": " + std::string(8 * 1024, 'x') + "\r\n";
    }
    head += "\r\n";
    beast::error_code ignored;
    net::write(stream, net::buffer(head), ignored);  // the server may stop reading early
    beast::flat_buffer buffer;
    http::response<http::string_body> response;
    http::read(stream, buffer, response);
    CHECK(response.result_int() == 400);
    CHECK(response.body().find("\"code\":\"BadRequest\"") != std::string::npos);
  }
  SECTION("a body over the wire limit") {
    beast::tcp_stream stream(ioc);
    stream.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), server.port()));
    // Announce a huge body but send only the headers: the server answers from the header alone.
    std::string head = "POST /dbs/db/colls/c/docs HTTP/1.1\r\nHost: x\r\nContent-Length: 20000000\r\n\r\n";
    net::write(stream, net::buffer(head));
    beast::flat_buffer buffer;
    http::response<http::string_body> response;
    http::read(stream, buffer, response);
    CHECK(response.result_int() == 413);
    CHECK(response.body().find("RequestEntityTooLarge") != std::string::npos);
  }
  SECTION("a malformed request line") {
    beast::tcp_stream stream(ioc);
    stream.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), server.port()));
    net::write(stream, net::buffer(std::string("GET / HTTP/1.1\r\nno colon here\r\n\r\n")));
    beast::flat_buffer buffer;
    http::response<http::string_body> response;
    http::read(stream, buffer, response);
    CHECK(response.result_int() == 400);
  }
}

TEST_CASE("with TLS on, one port serves HTTPS and plain HTTP", "[http]") {
  RunningServer server(/*tls=*/true);
  net::io_context ioc;
  {
    net::ssl::context context(net::ssl::context::tls_client);
    context.set_verify_mode(net::ssl::verify_none);
    beast::ssl_stream<beast::tcp_stream> stream(ioc, context);
    beast::get_lowest_layer(stream).connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), server.port()));
    stream.handshake(net::ssl::stream_base::client);
    auto request = Get("/_explorer/emulator.pem");
    request.prepare_payload();
    http::write(stream, request);
    beast::flat_buffer buffer;
    http::response<http::string_body> response;
    http::read(stream, buffer, response);
    CHECK(response.result_int() == 200);
    CHECK(response.body().rfind("-----BEGIN CERTIFICATE-----", 0) == 0);
  }
  {
    beast::tcp_stream stream(ioc);
    stream.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), server.port()));
    auto request = Get("/ready");
    CHECK(Exchange(stream, request).result_int() == 200);
  }
}

TEST_CASE("shutdown closes idle connections and returns", "[http]") {
  RunningServer server(/*tls=*/false);
  net::io_context ioc;
  beast::tcp_stream idle(ioc);
  idle.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), server.port()));
  auto started = std::chrono::steady_clock::now();
  server.Shutdown();
  // The server drops the idle connection: a read sees the end of the stream.
  beast::flat_buffer buffer;
  http::response<http::string_body> response;
  beast::error_code ec;
  http::read(idle, buffer, response, ec);
  CHECK(ec);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
}
