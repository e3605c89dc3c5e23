// ConnectionRegistry: every open connection of the HttpServer, from accept until its socket is
// closed, so that the count the cap (ServerOptions::max_connections) is checked against is exact;
// and, at the cap or out of descriptors, the choice of the connection to close to make room (the
// one that has waited longest between requests). Internal to server/: the listener
// (http_server.cc) registers connections, the sessions (http_session.h) mark them idle or busy;
// the public API is http_server.h.
// Thread-safety: the registry's methods may be called from any thread (one mutex guards it); a
// Ticket is used by the session that holds it, on its connection's strand.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cosmos::server {

// What the server can ask of every live session.
class SessionControl {
 public:
  virtual ~SessionControl() = default;
  // Closes the connection now if it is idle, otherwise after the response in flight.
  virtual void CloseWhenIdle() = 0;
};

// One accepted connection from accept to close (defined in connection_registry.cc).
struct Connection;

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
    ~Ticket();

    // Names the session now serving the connection (what the registry closes when it is chosen).
    void Bind(std::weak_ptr<SessionControl> session);
    // The connection now waits for a request's first byte (unless already chosen to close);
    // `first` when it has had no request yet.
    void MarkIdle(bool first);
    // A request (or TLS handshake) is under way (unless already chosen to close).
    void MarkBusy();
    bool ChosenToClose() const;

   private:
    std::shared_ptr<ConnectionRegistry> registry_;
    std::shared_ptr<Connection> connection_;
  };

  static Ticket Add(const std::shared_ptr<ConnectionRegistry>& registry);

  size_t Count() const;

  // Chooses the connection that has waited longest for a request and closes it (it leaves the
  // registry once its session is gone). False when every connection is in a request (or new).
  bool CloseIdlest();

  // Once: `on_room` runs (under the registry's lock: it must be quick, and not call back) when the
  // next connection leaves. Used by the acceptor, out of descriptors, to resume at once.
  void CallWhenRoom() { room_wanted_.store(true, std::memory_order_release); }
  void SetOnRoom(std::function<void()> on_room);

  std::vector<std::shared_ptr<SessionControl>> Sessions() const;

 private:
  void Bind(Connection& connection, std::weak_ptr<SessionControl> session);
  void Remove(uint64_t id);

  mutable std::mutex mu_;
  std::atomic<bool> room_wanted_{false};
  std::function<void()> on_room_;                                         // guarded by mu_
  uint64_t next_id_ = 1;                                                  // guarded by mu_
  std::unordered_map<uint64_t, std::shared_ptr<Connection>> live_;        // guarded by mu_
};
using ConnectionTicket = ConnectionRegistry::Ticket;

}  // namespace cosmos::server
