#include "bench/process_stats.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

namespace cosmos::bench {

ProcessSample SampleProcess(pid_t pid) {
  ProcessSample sample;
  if (pid <= 0) return sample;
  std::string base = "/proc/" + std::to_string(pid);
  std::ifstream stat_file(base + "/stat");
  std::string stat((std::istreambuf_iterator<char>(stat_file)), std::istreambuf_iterator<char>());
  // The command name (field 2) may contain spaces and parentheses: fields resume after the last ')'.
  size_t close = stat.rfind(')');
  if (close == std::string::npos) return sample;
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  unsigned long long utime = 0;
  unsigned long long stime = 0;
  // Field 3 (state) is the first after ')'; utime and stime are fields 14 and 15.
  for (int index = 3; index <= 15 && fields >> field; ++index) {
    if (index == 14) utime = std::stoull(field);
    if (index == 15) stime = std::stoull(field);
  }
  static const long ticks_per_second = sysconf(_SC_CLK_TCK);
  sample.cpu_seconds = static_cast<double>(utime + stime) / static_cast<double>(ticks_per_second);

  std::ifstream status(base + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      sample.rss_mb = std::stod(line.substr(6)) / 1024.0;  // reported in kB
      break;
    }
  }
  sample.valid = true;
  return sample;
}

MachineSample SampleMachine() {
  MachineSample sample;
  std::ifstream stat_file("/proc/stat");
  std::string label;
  unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (!(stat_file >> label >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal) || label != "cpu") {
    return sample;
  }
  static const double ticks_per_second = static_cast<double>(sysconf(_SC_CLK_TCK));
  sample.busy_seconds = static_cast<double>(user + nice + system + irq + softirq) / ticks_per_second;
  sample.steal_seconds = static_cast<double>(steal) / ticks_per_second;
  sample.valid = true;
  return sample;
}

double Quantile(std::vector<uint32_t>& values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
  rank = std::clamp<size_t>(rank, 1, values.size());
  return values[rank - 1];
}

}  // namespace cosmos::bench
