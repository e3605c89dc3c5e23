#include "server/connection_registry.h"

#include <chrono>

namespace cosmos::server {
namespace {

using SteadyClock = std::chrono::steady_clock;

// A connection that has not had a request yet may not be closed to make room before it has waited
// this long: its client has just connected and its request is on its way (out of descriptors,
// each connection accepted would otherwise be closed by the next one before it was read).
constexpr auto kNewConnectionGrace = std::chrono::seconds(1);

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

}  // namespace

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

ConnectionRegistry::Ticket::~Ticket() {
  if (registry_) registry_->Remove(connection_->id);
}

void ConnectionRegistry::Ticket::Bind(std::weak_ptr<SessionControl> session) {
  registry_->Bind(*connection_, std::move(session));
}

void ConnectionRegistry::Ticket::MarkIdle(bool first) {
  int64_t since = SteadyNanos(first ? SteadyClock::duration(kNewConnectionGrace) : SteadyClock::duration::zero());
  int64_t seen = connection_->idle_since.load(std::memory_order_relaxed);
  while (seen != kChosenToClose && !connection_->idle_since.compare_exchange_weak(seen, since)) {
  }
}

void ConnectionRegistry::Ticket::MarkBusy() {
  int64_t seen = connection_->idle_since.load(std::memory_order_relaxed);
  while (seen != kChosenToClose && seen != kBusy && !connection_->idle_since.compare_exchange_weak(seen, kBusy)) {
  }
}

bool ConnectionRegistry::Ticket::ChosenToClose() const {
  return connection_->idle_since.load(std::memory_order_relaxed) == kChosenToClose;
}

ConnectionRegistry::Ticket ConnectionRegistry::Add(const std::shared_ptr<ConnectionRegistry>& registry) {
  std::lock_guard<std::mutex> lock(registry->mu_);
  auto connection = std::make_shared<Connection>(registry->next_id_++);
  registry->live_.emplace(connection->id, connection);
  return Ticket(registry, std::move(connection));
}

size_t ConnectionRegistry::Count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_.size();
}

bool ConnectionRegistry::CloseIdlest() {
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

void ConnectionRegistry::SetOnRoom(std::function<void()> on_room) {
  std::lock_guard<std::mutex> lock(mu_);
  on_room_ = std::move(on_room);
}

std::vector<std::shared_ptr<SessionControl>> ConnectionRegistry::Sessions() const {
  std::vector<std::shared_ptr<SessionControl>> sessions;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, connection] : live_) {
    if (auto session = connection->session.lock()) sessions.push_back(std::move(session));
  }
  return sessions;
}

void ConnectionRegistry::Bind(Connection& connection, std::weak_ptr<SessionControl> session) {
  std::lock_guard<std::mutex> lock(mu_);
  connection.session = std::move(session);
}

void ConnectionRegistry::Remove(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  live_.erase(id);
  if (room_wanted_.load(std::memory_order_acquire) && room_wanted_.exchange(false) && on_room_) on_room_();
}

}  // namespace cosmos::server
