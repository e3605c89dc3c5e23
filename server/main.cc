// cosmolite: a local Azure Cosmos DB (NoSQL API) emulator. Parses flags, opens the store and
// serves the REST API until SIGINT or SIGTERM.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "engine/account.h"
#include "engine/maintenance/background_worker.h"
#include "engine/scripts/script_engine.h"
#include "server/http_server.h"
#include "server/official_emulator_settings.h"
#include "server/readiness_probe.h"
#include "server/request_handler.h"
#include "server/tls_certificate.h"

namespace {

constexpr char kEmulatorKey[] =
    "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";
constexpr char kDatabaseFile[] = "cosmolite.db";
// Where the official (classic) emulator image keeps its certificate; Testcontainers for Python
// copies it out of the container from there.
constexpr char kOfficialCertificatePath[] =
    "/tmp/cosmos/appdata/.system/profiles/Client/AppData/Local/CosmosDBEmulator/emulator.pem";
// The official vNext image keeps its data there.
constexpr char kOfficialDataPath[] = "/data";

struct Flags {
  unsigned short port = 8081;
  std::string host = "127.0.0.1";
  std::string data_dir = "./cosmolite-data";
  bool in_memory = false;
  std::string key = kEmulatorKey;
  std::string key_file;
  std::string secondary_key;
  std::string read_only_key;
  std::string secondary_read_only_key;
  std::string aad_tokens = "off";
  std::string explorer_dir;
  std::vector<std::string> aad_readers;
  bool no_tls = false;
  std::string cert;
  std::string cert_key;
  std::vector<std::string> cert_hosts;
  std::string cert_export;
  int threads = static_cast<int>(std::max(2u, std::thread::hardware_concurrency()));
  int workers = 4;
  int query_time_limit_s = 30;
  int script_time_limit_ms = 5000;
  int script_memory_limit_mb = 64;
  std::string log_level = "info";
  bool sync_full = false;
  int min_physical_partitions = 1;
  int64_t logical_partition_cap = int64_t{20} * 1024 * 1024 * 1024;
  std::string consistency = "Session";
  bool serverless = false;
  bool rate_limit = false;
  std::string list_prices;
  std::string advertise_host = "127.0.0.1";
  size_t max_connections = 0;  // 0: DefaultMaxConnections of the descriptor limit
  bool official_emulator_env = false;
  bool probe = false;
};

int Fail(const std::string& message) {
  spdlog::critical("{}", message);
  return 1;
}

// The key a file holds, without surrounding whitespace (a trailing newline, say).
std::optional<std::string> ReadKeyFile(const std::string& path) {
  std::ifstream file(path);
  if (!file) return std::nullopt;
  std::stringstream text;
  text << file.rdbuf();
  std::string key = text.str();
  size_t first = key.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return std::string();
  return key.substr(first, key.find_last_not_of(" \t\r\n") - first + 1);
}

// Writes the certificate clients trust where a user (or Testcontainers) can copy it from.
void ExportCertificate(const std::string& path, const std::string& pem) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << pem;
  out.close();
  if (!out) {
    spdlog::warn("--cert-export: cannot write {}", path);
    return;
  }
  std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                                         std::filesystem::perms::group_read | std::filesystem::perms::others_read,
                               ec);
}

// The official images' settings, for every flag given neither on the command line nor by its
// COSMOLITE_ variable; and their defaults: every interface, data in /data, the certificate where
// the classic image keeps it. Returns the variables that were set but mean nothing here.
cosmos::Result<std::vector<std::string>> ApplyOfficialEmulatorSettings(CLI::App& app, Flags& flags) {
  auto settings = cosmos::server::ReadOfficialEmulatorSettings([](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    return value ? std::optional<std::string>(value) : std::nullopt;
  });
  if (!settings.ok()) return settings.status();
  auto unset = [&app](const char* flag) { return app.get_option(flag)->count() == 0; };
  if (unset("--host")) flags.host = "0.0.0.0";
  if (unset("--port") && settings->port) flags.port = *settings->port;
  if (unset("--no-tls") && settings->plain_http) flags.no_tls = *settings->plain_http;
  if (unset("--in-memory") && settings->persistence) flags.in_memory = !*settings->persistence;
  if (unset("--data-dir")) flags.data_dir = settings->data_dir.value_or(kOfficialDataPath);
  if (unset("--key") && unset("--key-file")) {
    if (settings->key) flags.key = *settings->key;
    else if (settings->key_file) flags.key_file = *settings->key_file;
  }
  if (unset("--log-level") && settings->log_level) flags.log_level = *settings->log_level;
  if (unset("--advertise-host")) flags.advertise_host = settings->advertise_host.value_or("");
  if (unset("--cert-export")) flags.cert_export = kOfficialCertificatePath;
  for (const std::string& name : settings->certificate_names) flags.cert_hosts.push_back(name);
  return settings->ignored;
}

// How logs name the account key: never the key itself, unless it is the public emulator key.
std::string DescribeKey(const std::string& key) {
  if (key == kEmulatorKey) return "the well-known emulator key";
  return "a custom key (" + cosmos::server::KeyFingerprint(key) + ")";
}

}  // namespace

int main(int argc, char** argv) {
  auto started = std::chrono::steady_clock::now();
  Flags flags;
  CLI::App app{"cosmolite: a local Azure Cosmos DB (NoSQL API) emulator.\n"
               "Every flag can also be set through the environment variable named after it."};
  app.add_option("--port", flags.port, "TCP port to listen on")->envname("COSMOLITE_PORT")->capture_default_str();
  app.add_option("--host", flags.host, "address to listen on (0.0.0.0 for every interface)")
      ->envname("COSMOLITE_HOST")->capture_default_str();
  app.add_option("--data-dir", flags.data_dir, "directory for the data file and the generated certificate")
      ->envname("COSMOLITE_DATA_DIR")->capture_default_str();
  app.add_flag("--in-memory", flags.in_memory, "keep nothing on disk; all data is lost on exit")
      ->envname("COSMOLITE_IN_MEMORY");
  auto* key_option = app.add_option("--key", flags.key,
                                    "account master key (base64); default: the well-known emulator key. A key on "
                                    "the command line shows in the process list: prefer COSMOLITE_KEY or --key-file")
                         ->envname("COSMOLITE_KEY");
  app.add_option("--key-file", flags.key_file, "file holding the account master key (base64)")
      ->envname("COSMOLITE_KEY_FILE")
      ->excludes(key_option);
  app.add_option("--secondary-key", flags.secondary_key, "a second account key, as the service's secondary key")
      ->envname("COSMOLITE_SECONDARY_KEY");
  app.add_option("--read-only-key", flags.read_only_key,
                 "a read-only key: it signs reads and queries; a write signed with it gets 401, as a wrong "
                 "signature would")
      ->envname("COSMOLITE_READ_ONLY_KEY");
  app.add_option("--secondary-read-only-key", flags.secondary_read_only_key, "a second read-only key")
      ->envname("COSMOLITE_SECONDARY_READ_ONLY_KEY");
  app.add_option("--aad-tokens", flags.aad_tokens,
                 "Entra ID (AAD) tokens: off; emulator (a JWT whose signature part is an account key, as the "
                 "SDKs' emulator credentials make); any (any well-formed, unexpired JWT)")
      ->envname("COSMOLITE_AAD_TOKENS")
      ->check(CLI::IsMember({"off", "emulator", "any"}))
      ->capture_default_str();
  app.add_option("--aad-readers", flags.aad_readers,
                 "Entra ID principals (oid claims, comma-separated) that are Data Readers; others are Data Contributors")
      ->envname("COSMOLITE_AAD_READERS")
      ->delimiter(',');
  app.add_option("--explorer-dir", flags.explorer_dir,
                 "serve the data explorer's files from this directory (explorer/ of the source tree, after npm ci "
                 "there) instead of the built-in ones, read at each request: for work on the page")
      ->envname("COSMOLITE_EXPLORER_DIR")
      ->check(CLI::ExistingDirectory);
  app.add_flag("--no-tls", flags.no_tls, "serve plain HTTP only (by default HTTPS and HTTP share the port)")
      ->envname("COSMOLITE_NO_TLS");
  app.add_option("--cert", flags.cert, "PEM certificate (chain) to serve instead of the generated one")
      ->envname("COSMOLITE_CERT");
  app.add_option("--cert-key", flags.cert_key, "PEM private key of --cert")->envname("COSMOLITE_CERT_KEY");
  app.add_option("--threads", flags.threads, "I/O threads")->envname("COSMOLITE_THREADS")->capture_default_str()
      ->check(CLI::Range(1, 256));
  app.add_option("--workers", flags.workers,
                 "threads that run queries (writes run on one thread, in batches that share a commit)")
      ->envname("COSMOLITE_WORKERS")->capture_default_str()->check(CLI::Range(1, 1024));
  app.add_option("--query-time-limit", flags.query_time_limit_s,
                 "seconds after which a query page that cannot end early (ORDER BY, GROUP BY, aggregates, "
                 "one costly row) is abandoned with 408; other pages end at 5 s with a continuation")
      ->envname("COSMOLITE_QUERY_TIME_LIMIT")->capture_default_str()->check(CLI::Range(1, 86400));
  app.add_option("--script-time-limit", flags.script_time_limit_ms,
                 "milliseconds a stored procedure may run before it is stopped with 408 RequestTimeout")
      ->envname("COSMOLITE_SCRIPT_TIME_LIMIT")->capture_default_str()->check(CLI::Range(10, 600000));
  app.add_option("--script-memory-limit", flags.script_memory_limit_mb,
                 "megabytes of JavaScript heap a stored procedure, trigger or UDF may use; past it, 400 out of memory")
      ->envname("COSMOLITE_SCRIPT_MEMORY_LIMIT")->capture_default_str()->check(CLI::Range(8, 4096));
  app.add_option("--log-level", flags.log_level, "trace, debug, info, warn, error or off")
      ->envname("COSMOLITE_LOG_LEVEL")->capture_default_str();
  app.add_flag("--sync-full", flags.sync_full,
               "fsync every commit (survives power loss); default WAL + synchronous=NORMAL survives "
               "a process crash")->envname("COSMOLITE_SYNC_FULL");
  app.add_option("--min-physical-partitions", flags.min_physical_partitions,
                 "every new container gets at least this many physical partitions (partition key ranges), "
                 "so that cross-partition fan-out is real on small data")
      ->envname("COSMOLITE_MIN_PHYSICAL_PARTITIONS")->capture_default_str()->check(CLI::Range(1, 256));
  app.add_option("--logical-partition-cap", flags.logical_partition_cap,
                 "bytes one logical partition (partition key value) may hold; the service's cap is 20 GB")
      ->envname("COSMOLITE_LOGICAL_PARTITION_CAP")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--consistency", flags.consistency,
                 "the account's default consistency: Strong, BoundedStaleness, Session, ConsistentPrefix or "
                 "Eventual; reads at Strong and BoundedStaleness cost twice as much")
      ->envname("COSMOLITE_CONSISTENCY")->capture_default_str()
      ->check([](const std::string& text) {
        return cosmos::engine::ParseConsistencyLevel(text) ? std::string() : std::string("unknown consistency level");
      });
  app.add_flag("--serverless", flags.serverless,
               "a serverless account: no provisioned throughput or offers; each container may use up to 5,000 RU/s")
      ->envname("COSMOLITE_SERVERLESS");
  app.add_flag("--rate-limit", flags.rate_limit,
               "enforce provisioned throughput: each physical partition gets its share of the container's RU/s "
               "per second, and requests beyond it get 429 with x-ms-retry-after-ms")
      ->envname("COSMOLITE_RATE_LIMIT");
  app.add_option("--list-prices", flags.list_prices,
                 "USD list prices of GET /_cosmolite/cost-report, as provisioned=0.008,autoscale=0.012,"
                 "serverless=0.25,storage=0.25 (per 100 RU/s per hour; per 100 RU/s per hour; per million RU; per GB "
                 "per month); the defaults are the published prices of docs/cost-report.md")
      ->envname("COSMOLITE_LIST_PRICES")
      ->check([](const std::string& text) {
        auto prices = cosmos::engine::ParseListPrices(text);
        return prices.ok() ? std::string() : prices.status().message();
      });
  app.add_option("--advertise-host", flags.advertise_host,
                 "host name or address GET / advertises as the account's read and write location, with the port "
                 "the client connected to (the official emulator advertises 127.0.0.1); empty: the host the client "
                 "named in its Host header (the default with --official-emulator-env)")
      ->envname("COSMOLITE_ADVERTISE_HOST")
      ->capture_default_str();
  app.add_option("--max-connections", flags.max_connections,
                 "connections served at once; at the cap a new connection closes the idlest idle keep-alive "
                 "connection, or is refused when none is idle. Default: the descriptor limit (raised to its hard "
                 "limit at start) less a reserve for the data file and the threads, at most 10000")
      ->envname("COSMOLITE_MAX_CONNECTIONS")
      ->check(CLI::Range(size_t{1}, size_t{1000000}));
  app.add_option("--cert-hosts", flags.cert_hosts,
                 "more names and addresses the server certificate is valid for, comma-separated (a compose "
                 "service name, a load balancer's address); it always names localhost, 127.0.0.1, ::1, the host "
                 "name and the address of every interface")
      ->envname("COSMOLITE_CERT_HOSTS")
      ->delimiter(',');
  app.add_option("--cert-export", flags.cert_export,
                 "also write the certificate clients should trust (the one /_explorer/emulator.pem serves) to "
                 "this file at start")
      ->envname("COSMOLITE_CERT_EXPORT");
  app.add_flag("--official-emulator-env", flags.official_emulator_env,
               "behave as Microsoft's emulator images: read their environment variables (PORT, PROTOCOL, "
               "DATA_PATH, KEY_FILE, LOG_LEVEL, GATEWAY_PUBLIC_ENDPOINT, AZURE_COSMOS_EMULATOR_KEY, "
               "_ENABLE_DATA_PERSISTENCE, _IP_ADDRESS_OVERRIDE) for flags not given otherwise, listen on "
               "0.0.0.0, keep data in /data, advertise the host each client named, and print the readiness "
               "lines Testcontainers waits for. "
               "cosmolite's Docker image sets it")
      ->envname("COSMOLITE_OFFICIAL_EMULATOR_ENV");
  app.add_flag("--probe", flags.probe,
               "do not serve: ask the server these flags describe whether it is ready (GET /ready over "
               "loopback) and exit 0 if so, 1 if not; the Docker image's HEALTHCHECK");
  CLI11_PARSE(app, argc, argv);

  std::vector<std::string> ignored_settings;
  if (flags.official_emulator_env) {
    auto applied = ApplyOfficialEmulatorSettings(app, flags);
    if (!applied.ok()) {
      std::fprintf(stderr, "cosmolite: %s\n", applied.status().message().c_str());
      return 1;
    }
    ignored_settings = std::move(applied).value();
  }
  if (flags.probe) {
    std::string problem;
    if (cosmos::server::ProbeReady(flags.host, flags.port, std::chrono::seconds(3), problem)) return 0;
    std::fprintf(stderr, "cosmolite --probe: not ready: %s\n", problem.c_str());
    return 1;
  }

  spdlog::set_level(spdlog::level::from_str(flags.log_level));
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
  for (const std::string& setting : ignored_settings) spdlog::info("ignored: {}", setting);
  // Every connection holds a descriptor: the soft limit (often 1,024) goes up to the hard limit
  // before the data file and the listener take theirs.
  cosmos::server::DescriptorLimit descriptors = cosmos::server::RaiseDescriptorLimit();
  // The data directory, the data file with its WAL, and the certificate's private key are the
  // account's: no other local user may read them.
  umask(077);
  if (!flags.key_file.empty()) {
    std::optional<std::string> key = ReadKeyFile(flags.key_file);
    if (!key) return Fail("--key-file: cannot read " + flags.key_file);
    flags.key = std::move(*key);
  }

  std::optional<std::string> data_dir;
  cosmos::storage::StoreOptions store_options;
  store_options.sync_every_commit = flags.sync_full;
  if (!flags.in_memory) {
    std::error_code ec;
    std::filesystem::create_directories(flags.data_dir, ec);
    if (ec) return Fail("cannot create the data directory " + flags.data_dir + ": " + ec.message());
    data_dir = flags.data_dir;
    store_options.path = (std::filesystem::path(flags.data_dir) / kDatabaseFile).string();
  }
  auto store = cosmos::storage::Store::Open(store_options);
  if (!store.ok()) return Fail(store.status().message());
  if (!flags.in_memory) {
    // Files an older version created readable by all; SQLite gives a new WAL the file's mode.
    std::error_code ignored;
    std::filesystem::permissions(store_options.path,
                                 std::filesystem::perms::owner_read | std::filesystem::perms::owner_write, ignored);
  }
  cosmos::engine::AccountOptions account_options;
  account_options.min_physical_partitions = flags.min_physical_partitions;
  account_options.logical_partition_cap_bytes = flags.logical_partition_cap;
  account_options.default_consistency = *cosmos::engine::ParseConsistencyLevel(flags.consistency);
  account_options.serverless = flags.serverless;
  account_options.rate_limit = flags.rate_limit;
  if (!flags.list_prices.empty()) account_options.list_prices = cosmos::engine::ParseListPrices(flags.list_prices).value();
  account_options.query_time_limit = std::chrono::seconds(flags.query_time_limit_s);
  account_options.script_time_limit = std::chrono::milliseconds(flags.script_time_limit_ms);
  cosmos::engine::ScriptEngine::SetHeapBytes(static_cast<size_t>(flags.script_memory_limit_mb) * 1024 * 1024);
  cosmos::engine::Account account(std::move(store).value(), account_options);
  if (auto upgraded = account.UpgradeDataFile(); !upgraded.ok()) {
    return Fail("cannot upgrade the data file: " + upgraded.message());
  }
  // A data file's index is kept in memory only: it is built again now, and what a second does not
  // build, the background worker finishes (queries scan the documents of a container meanwhile).
  if (cosmos::Result<bool> building = account.ContinueIndexBuildsFor(std::chrono::seconds(1)); !building.ok()) {
    spdlog::warn("index build failed: {} (the background worker tries again)", building.status().message());
  } else if (*building) {
    spdlog::info("the index is still being built, in the background");
  }
  cosmos::engine::BackgroundWorker background_worker(account);

  auto auth = cosmos::server::MasterKeyAuth::Create(flags.key);
  if (!auth.ok()) return Fail("--key: " + auth.status().message());
  std::string other_keys;  // how the start line names the keys besides the primary one
  for (auto [flag, key] : {std::pair{"--secondary-key", &flags.secondary_key}, std::pair{"--read-only-key", &flags.read_only_key},
                           std::pair{"--secondary-read-only-key", &flags.secondary_read_only_key}}) {
    if (key->empty()) continue;
    if (auto valid = cosmos::server::MasterKeyAuth::Create(*key); !valid.ok()) {
      return Fail(std::string(flag) + ": " + valid.status().message());
    }
    other_keys += std::string(", ") + (flag + 2) + " " + DescribeKey(*key);
  }
  if (flags.aad_tokens != "off") other_keys += ", Entra ID tokens: " + flags.aad_tokens;

  cosmos::server::ServerOptions server_options;
  server_options.host = flags.host;
  server_options.port = flags.port;
  server_options.threads = flags.threads;
  server_options.worker_threads = flags.workers;
  // Queries still running at SIGTERM end at their next row with 503, so that the server's wait for
  // requests in flight ends at once rather than after them.
  server_options.on_shutdown = [&account] { account.StopRunningWork(); };
  size_t default_max_connections =
      cosmos::server::DefaultMaxConnections(descriptors.now, flags.threads, flags.workers);
  server_options.max_connections = flags.max_connections > 0 ? flags.max_connections : default_max_connections;
  // Worth an info line only when the descriptor limit lowered the default cap.
  bool lowered = flags.max_connections == 0 && default_max_connections < cosmos::server::kDefaultMaxConnectionsCeiling;
  spdlog::log(lowered ? spdlog::level::info : spdlog::level::debug,
              "descriptor limit {} (was {} at start); at most {} connections", descriptors.now, descriptors.before,
              server_options.max_connections);
  if (flags.max_connections >= descriptors.now) {
    spdlog::warn("--max-connections {} is not below the descriptor limit {}: past it, new connections are refused "
                 "or close idle ones", flags.max_connections, descriptors.now);
  }
  std::string certificate_path = "none (plain HTTP)";
  cosmos::server::HandlerOptions handler_options;
  if (!flags.no_tls) {
    auto names = cosmos::server::LocalCertificateNames(flags.cert_hosts);
    if (!names.ok()) return Fail("--cert-hosts: " + names.status().message());
    auto tls = cosmos::server::LoadOrCreateCertificate(flags.cert, flags.cert_key, data_dir, *names);
    if (!tls.ok()) return Fail(tls.status().message());
    server_options.certificate_pem = tls->certificate_pem;
    server_options.private_key_pem = tls->private_key_pem;
    handler_options.authority_pem = tls->authority_pem;
    certificate_path = tls->authority_path;
    if (!flags.cert_export.empty()) ExportCertificate(flags.cert_export, tls->authority_pem);
  }

  handler_options.advertised_host = flags.advertise_host;
  if (!flags.secondary_key.empty()) handler_options.secondary_keys.push_back(flags.secondary_key);
  for (const std::string* key : {&flags.read_only_key, &flags.secondary_read_only_key}) {
    if (!key->empty()) handler_options.read_only_keys.push_back(*key);
  }
  handler_options.listen_port = flags.port;
  handler_options.aad_mode = cosmos::server::ParseAadMode(flags.aad_tokens).value_or(cosmos::server::AadMode::kOff);
  handler_options.aad_reader_principals = flags.aad_readers;
  handler_options.explorer_dir = flags.explorer_dir;
  cosmos::server::RequestHandler handler(account, std::move(auth).value(), handler_options);
  cosmos::server::HttpServer server(server_options, handler);
  if (auto status = server.Listen(); !status.ok()) return Fail(status.message());

  double ready_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  std::string scheme = flags.no_tls ? "http" : "https";
  spdlog::info("cosmolite ready in {:.1f} ms: endpoint {}://{}:{}/ key: {}{}; certificate {} data {}", ready_ms,
               scheme, flags.host, server.BoundPort(), DescribeKey(flags.key), other_keys, certificate_path,
               flags.in_memory ? std::string("in memory") : store_options.path);
  if (flags.official_emulator_env) {
    // The lines the Testcontainers modules wait for: Node's "Now listening on: ", and Java's
    // ".*Started\r\n$" (a carriage return before the newline), which .NET's and Python's match too.
    // Printed at any log level: a quiet container must still be seen to start.
    std::string listening = fmt::format("Now listening on: {}://{}:{}", scheme, flags.host, server.BoundPort());
    if (spdlog::should_log(spdlog::level::info)) {
      spdlog::info("{}", listening);
      spdlog::info("Started\r");
    } else {
      std::fprintf(stdout, "%s\nStarted\r\n", listening.c_str());
      std::fflush(stdout);
    }
  }
  server.Run();
  spdlog::info("cosmolite stopped");
  return 0;
}
