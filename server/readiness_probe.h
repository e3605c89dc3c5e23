// `cosmolite --probe`: asks a running server on this machine whether it is ready, for a container's
// HEALTHCHECK (the image has no shell, curl or wget). Plain HTTP `GET /ready` on the loopback
// address of the server's listen address (127.0.0.1 for 0.0.0.0, ::1 for ::), which works whether
// or not TLS is on, because HTTPS and HTTP share the port.
// Thread-safety: a free function without shared state.
#pragma once

#include <chrono>
#include <string>

namespace cosmos::server {

// True when the server at `listen_host`:`port` answers GET /ready with 200 within `timeout`.
// `problem` says why not (refused, timed out, another status).
bool ProbeReady(const std::string& listen_host, unsigned short port, std::chrono::milliseconds timeout,
                std::string& problem);

}  // namespace cosmos::server
