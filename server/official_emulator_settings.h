// The settings of Microsoft's emulator images, read from their environment variables, so that
// cosmolite's image is a drop-in for theirs (in a `docker run -e …`, a compose file or a
// Testcontainers module). Only read when asked (`--official-emulator-env`, which the image sets):
// a variable as common as PORT must not reconfigure a server started by hand.
//   classic image: AZURE_COSMOS_EMULATOR_KEY, _ENABLE_DATA_PERSISTENCE, _IP_ADDRESS_OVERRIDE,
//                  _PARTITION_COUNT (no meaning here: there is no partition pool to size);
//   vNext image:   PORT, PROTOCOL, DATA_PATH, KEY_FILE, LOG_LEVEL, GATEWAY_PUBLIC_ENDPOINT; the
//                  explorer, telemetry and exporter switches and CERT_PATH have no meaning yet.
// Thread-safety: a free function without shared state.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace cosmos::server {

struct OfficialEmulatorSettings {
  std::optional<unsigned short> port;         // PORT
  std::optional<bool> plain_http;             // PROTOCOL: http → true; https, https-insecure → false
  std::optional<bool> persistence;            // AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE
  std::optional<std::string> data_dir;        // DATA_PATH
  std::optional<std::string> key;             // AZURE_COSMOS_EMULATOR_KEY
  std::optional<std::string> key_file;        // KEY_FILE
  std::optional<std::string> log_level;       // LOG_LEVEL, in spdlog's words (quiet → off)
  std::optional<std::string> advertise_host;  // _IP_ADDRESS_OVERRIDE, else GATEWAY_PUBLIC_ENDPOINT's host
  std::vector<std::string> certificate_names; // both of the above: clients reach the server by them
  std::vector<std::string> ignored;           // "NAME=value (why)" for each variable set without effect here
};

// Reads the variables through `lookup` (nullopt: unset). An empty value counts as unset. A value
// that cannot be meant (PORT=http, PROTOCOL=ftp, ENABLE_DATA_PERSISTENCE=maybe) is kBadRequest
// naming the variable; booleans take true/false in any case (Testcontainers for Python sends
// "True"), and a partition count of "None" is ignored like any other.
using EnvironmentLookup = std::function<std::optional<std::string>(const std::string& name)>;
Result<OfficialEmulatorSettings> ReadOfficialEmulatorSettings(const EnvironmentLookup& lookup);

}  // namespace cosmos::server
