#include "server/readiness_probe.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cosmos::server {
namespace {

// Closes the socket on every path out.
struct Socket {
  int fd = -1;
  ~Socket() {
    if (fd >= 0) close(fd);
  }
};

// Waits for `events` on `fd` until `deadline`; false on timeout or error.
bool WaitFor(int fd, short events, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd entry{fd, events, 0};
    int ready = poll(&entry, 1, static_cast<int>(left.count()));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) return false;
  }
}

}  // namespace

bool ProbeReady(const std::string& listen_host, unsigned short port, std::chrono::milliseconds timeout,
                std::string& problem) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  bool ipv6 = listen_host.find(':') != std::string::npos;
  std::string address = listen_host;
  if (listen_host.empty() || listen_host == "0.0.0.0") address = "127.0.0.1";
  if (listen_host == "::") address = "::1";

  sockaddr_storage target{};
  socklen_t target_size = 0;
  if (ipv6) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&target);
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(port);
    if (inet_pton(AF_INET6, address.c_str(), &in6->sin6_addr) != 1) {
      problem = "not an address: " + address;
      return false;
    }
    target_size = sizeof *in6;
  } else {
    auto* in4 = reinterpret_cast<sockaddr_in*>(&target);
    in4->sin_family = AF_INET;
    in4->sin_port = htons(port);
    if (inet_pton(AF_INET, address.c_str(), &in4->sin_addr) != 1) {
      problem = "not an address: " + address + " (give --host as an IP address)";
      return false;
    }
    target_size = sizeof *in4;
  }

  Socket socket_{::socket(target.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)};
  if (socket_.fd < 0) {
    problem = std::string("socket: ") + std::strerror(errno);
    return false;
  }
  std::string where = address + ":" + std::to_string(port);
  if (connect(socket_.fd, reinterpret_cast<sockaddr*>(&target), target_size) != 0) {
    if (errno != EINPROGRESS || !WaitFor(socket_.fd, POLLOUT, deadline)) {
      problem = "cannot connect to " + where;
      return false;
    }
    int error = 0;
    socklen_t size = sizeof error;
    getsockopt(socket_.fd, SOL_SOCKET, SO_ERROR, &error, &size);
    if (error != 0) {
      problem = "cannot connect to " + where + ": " + std::strerror(error);
      return false;
    }
  }
  std::string request = "GET /ready HTTP/1.1\r\nHost: " + where + "\r\nConnection: close\r\n\r\n";
  for (size_t sent = 0; sent < request.size();) {
    if (!WaitFor(socket_.fd, POLLOUT, deadline)) {
      problem = "timed out sending to " + where;
      return false;
    }
    ssize_t count = send(socket_.fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (count < 0 && errno != EAGAIN && errno != EINTR) {
      problem = std::string("send: ") + std::strerror(errno);
      return false;
    }
    if (count > 0) sent += static_cast<size_t>(count);
  }
  // The status line is all we need: "HTTP/1.1 200 ...".
  std::string answer;
  while (answer.find("\r\n") == std::string::npos && answer.size() < 256) {
    if (!WaitFor(socket_.fd, POLLIN, deadline)) {
      problem = "no answer from " + where + " within " + std::to_string(timeout.count()) + " ms";
      return false;
    }
    char buffer[256];
    ssize_t count = recv(socket_.fd, buffer, sizeof buffer, 0);
    if (count == 0) break;
    if (count < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      problem = std::string("recv: ") + std::strerror(errno);
      return false;
    }
    answer.append(buffer, static_cast<size_t>(count));
  }
  std::string status_line = answer.substr(0, answer.find("\r\n"));
  if (status_line.rfind("HTTP/1.1 200", 0) == 0 || status_line.rfind("HTTP/1.0 200", 0) == 0) return true;
  problem = "GET /ready answered '" + status_line + "'";
  return false;
}

}  // namespace cosmos::server
