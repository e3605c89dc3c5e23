#include "server/official_emulator_settings.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace cosmos::server {
namespace {

std::string Lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

Result<bool> ParseBoolean(const std::string& name, const std::string& value) {
  std::string lower = Lowercase(value);
  if (lower == "true" || lower == "1") return true;
  if (lower == "false" || lower == "0") return false;
  return Status::BadRequest(name + "='" + value + "' is neither true nor false");
}

// "https://host:8081/", "host:8081" or "host" → "host" (brackets kept off an IPv6 address).
std::string HostOf(const std::string& endpoint) {
  std::string rest = endpoint;
  if (size_t scheme = rest.find("://"); scheme != std::string::npos) rest = rest.substr(scheme + 3);
  rest = rest.substr(0, rest.find('/'));
  if (!rest.empty() && rest.front() == '[') return rest.substr(1, rest.find(']') - 1);
  if (std::count(rest.begin(), rest.end(), ':') == 1) rest = rest.substr(0, rest.find(':'));
  return rest;
}

}  // namespace

Result<OfficialEmulatorSettings> ReadOfficialEmulatorSettings(const EnvironmentLookup& lookup) {
  OfficialEmulatorSettings settings;
  auto get = [&lookup](const std::string& name) -> std::optional<std::string> {
    std::optional<std::string> value = lookup(name);
    if (value && value->empty()) return std::nullopt;
    return value;
  };

  if (auto port = get("PORT")) {
    unsigned value = 0;
    auto [end, error] = std::from_chars(port->data(), port->data() + port->size(), value);
    if (error != std::errc() || end != port->data() + port->size() || value == 0 || value > 65535) {
      return Status::BadRequest("PORT='" + *port + "' is not a port number");
    }
    settings.port = static_cast<unsigned short>(value);
  }
  if (auto protocol = get("PROTOCOL")) {
    std::string lower = Lowercase(*protocol);
    if (lower == "http") {
      settings.plain_http = true;
    } else if (lower == "https" || lower == "https-insecure") {
      settings.plain_http = false;
    } else {
      return Status::BadRequest("PROTOCOL='" + *protocol + "' is not http, https or https-insecure");
    }
  }
  if (auto persistence = get("AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE")) {
    COSMOS_ASSIGN_OR_RETURN(settings.persistence,
                            ParseBoolean("AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE", *persistence));
  }
  settings.data_dir = get("DATA_PATH");
  settings.key = get("AZURE_COSMOS_EMULATOR_KEY");
  settings.key_file = get("KEY_FILE");
  if (auto level = get("LOG_LEVEL")) {
    std::string lower = Lowercase(*level);
    if (lower == "quiet") lower = "off";
    if (lower == "warning") lower = "warn";
    static const std::vector<std::string> kLevels = {"off", "error", "warn", "info", "debug", "trace"};
    if (std::find(kLevels.begin(), kLevels.end(), lower) == kLevels.end()) {
      return Status::BadRequest("LOG_LEVEL='" + *level + "' is not quiet, error, warn, info, debug or trace");
    }
    settings.log_level = lower;
  }
  if (auto gateway = get("GATEWAY_PUBLIC_ENDPOINT")) {
    std::string host = HostOf(*gateway);
    if (!host.empty()) {
      settings.advertise_host = host;
      settings.certificate_names.push_back(host);
    }
  }
  if (auto address = get("AZURE_COSMOS_EMULATOR_IP_ADDRESS_OVERRIDE")) {
    settings.advertise_host = *address;  // the classic image's own setting wins
    settings.certificate_names.push_back(*address);
  }

  struct Ignored {
    const char* name;
    const char* why;
  };
  static const Ignored kIgnored[] = {
      {"AZURE_COSMOS_EMULATOR_PARTITION_COUNT",
       "no partition pool to size: a container's physical partitions follow its throughput"},
      {"AZURE_COSMOS_EMULATOR_DEFAULT_PARTITION_COUNT", "see --min-physical-partitions"},
      {"AZURE_COSMOS_EMULATOR_ARGS", "the Windows emulator's switches"},
      {"AZURE_COSMOS_EMULATOR_ENABLE_MONGODB_ENDPOINT", "only the NoSQL API is served"},
      {"ENABLE_EXPLORER", "no data explorer yet"},
      {"EXPLORER_PORT", "no data explorer yet"},
      {"EXPLORER_PROTOCOL", "no data explorer yet"},
      {"ENABLE_TELEMETRY", "cosmolite sends no telemetry"},
      {"ENABLE_OTLP_EXPORTER", "no OpenTelemetry export"},
      {"ENABLE_CONSOLE_EXPORTER", "no OpenTelemetry export"},
      {"CERT_PATH", "PFX certificates are not read: give PEM files with COSMOLITE_CERT and COSMOLITE_CERT_KEY"},
      {"CERT_SECRET", "PFX certificates are not read"},
  };
  for (const Ignored& ignored : kIgnored) {
    if (auto value = get(ignored.name)) {
      bool secret = std::string(ignored.name) == "CERT_SECRET";
      settings.ignored.push_back(std::string(ignored.name) + "=" + (secret ? "…" : *value) + " (" + ignored.why + ")");
    }
  }
  return settings;
}

}  // namespace cosmos::server
