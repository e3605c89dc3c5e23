// A driver for the fuzz targets where libFuzzer is not available (the gcc build of `make test`):
// runs the target on every file of a seed corpus, then on mutations of them (byte flips,
// insertions, deletions, repeats of a slice, splices of two seeds) for a number of seconds, from
// a fixed seed so that a failure replays. A crash fails the test run as a crash would the server;
// `make fuzz` runs the same targets under libFuzzer with ASan and UBSan.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

// The input being run, written to fuzz-crash-input in the working directory if it crashes.
const std::string* current_input = nullptr;

void SaveCrashingInput(int signal) {
  if (current_input != nullptr) {
    int fd = open("fuzz-crash-input", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      (void)!write(fd, current_input->data(), current_input->size());
      close(fd);
    }
    static const char kMessage[] = "crashing input saved to fuzz-crash-input\n";
    (void)!write(2, kMessage, sizeof(kMessage) - 1);
  }
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

std::vector<std::string> ReadCorpus(const std::filesystem::path& dir) {
  std::vector<std::string> seeds;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream file(entry.path(), std::ios::binary);
    std::stringstream text;
    text << file.rdbuf();
    seeds.push_back(text.str());
  }
  if (seeds.empty()) seeds.emplace_back();
  return seeds;
}

std::string Mutate(std::string input, const std::vector<std::string>& seeds, std::mt19937_64& random) {
  auto pick = [&](size_t bound) { return bound == 0 ? size_t{0} : static_cast<size_t>(random() % bound); };
  int rounds = 1 + static_cast<int>(pick(4));
  for (int round = 0; round < rounds; ++round) {
    switch (pick(6)) {
      case 0:  // flip a byte
        if (!input.empty()) input[pick(input.size())] = static_cast<char>(random());
        break;
      case 1:  // insert a byte that matters to the grammars
        input.insert(pick(input.size() + 1), 1, "[]{}()\"'\\,:.%_*?@ 0123456789aAzZ-+/#\n"[pick(38)]);
        break;
      case 2:  // delete a slice
        if (!input.empty()) {
          size_t at = pick(input.size());
          input.erase(at, pick(input.size() - at) + 1);
        }
        break;
      case 3: {  // repeat a slice many times: deep nesting, long chains
        if (input.empty()) break;
        size_t at = pick(input.size());
        std::string slice = input.substr(at, 1 + pick(8));
        std::string repeated;
        for (size_t i = 0, n = 1 + pick(2000); i < n; ++i) repeated += slice;
        input.insert(at, repeated);
        break;
      }
      case 4: {  // splice in part of another seed
        const std::string& other = seeds[pick(seeds.size())];
        size_t at = pick(other.size() + 1);
        input.insert(pick(input.size() + 1), other.substr(at, pick(other.size() - at + 1)));
        break;
      }
      default:  // truncate
        input.resize(pick(input.size() + 1));
        break;
    }
  }
  return input;
}

void Run(const std::string& input) {
  current_input = &input;
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  current_input = nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR [SECONDS]\n", argv[0]);
    return 2;
  }
  for (int signal : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) std::signal(signal, SaveCrashingInput);
  std::vector<std::string> seeds = ReadCorpus(argv[1]);
  double seconds = argc > 2 ? std::atof(argv[2]) : 5.0;
  for (const std::string& seed : seeds) Run(seed);
  std::mt19937_64 random(20261205);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  uint64_t executions = seeds.size();
  while (std::chrono::steady_clock::now() < deadline) {
    for (int i = 0; i < 64; ++i, ++executions) Run(Mutate(seeds[random() % seeds.size()], seeds, random));
  }
  std::printf("%s: %llu executions over %zu seeds, no crash\n", argv[0], static_cast<unsigned long long>(executions),
              seeds.size());
  return 0;
}
