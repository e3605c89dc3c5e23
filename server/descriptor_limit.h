// The process's limit on open file descriptors, and the connection cap it leaves room for: what
// `main.cc` raises at start and what ServerOptions::max_connections defaults to. Part of the
// server's public API, reached through http_server.h.
// Thread-safety: RaiseDescriptorLimit changes the process's limit (call it once, at start, before
// threads start); the other functions only read it, or compute.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cosmos::server {

// The soft limit on open file descriptors, raised to the hard limit at start.
struct DescriptorLimit {
  uint64_t before = 0;  // the soft limit the process started with
  uint64_t now = 0;     // the soft limit after raising it (RLIM_INFINITY as UINT64_MAX)
};
// Raises RLIMIT_NOFILE's soft limit to its hard limit (to fs.nr_open when the hard limit is
// unlimited). Call once, at start, before threads start.
DescriptorLimit RaiseDescriptorLimit();
// The soft limit on open file descriptors now.
uint64_t CurrentDescriptorLimit();
// The --max-connections default: the descriptor limit less what the process needs besides
// connections (see the definition), at most kDefaultMaxConnectionsCeiling.
size_t DefaultMaxConnections(uint64_t descriptor_limit, int io_threads, int worker_threads);
// The default's ceiling: far above what the SDKs' pools open (.NET gateway mode 50 connections an
// endpoint, Java gateway 1,000 a client), while bounding memory: an idle connection holds about
// 3 KB over plain HTTP and 75 KB over TLS (Asio's two 17 KB TLS buffers and OpenSSL's), so
// 10,000 of them about 30 MB or 750 MB.
inline constexpr size_t kDefaultMaxConnectionsCeiling = 10000;

}  // namespace cosmos::server
