// CPU time and resident memory of a process, from /proc/<pid>/stat (utime + stime) and
// /proc/<pid>/status (VmRSS), and the machine's CPU time from /proc/stat.
// Thread-safety: stateless functions.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace cosmos::bench {

struct ProcessSample {
  bool valid = false;      // false: the process does not exist (or pid 0 was passed)
  double cpu_seconds = 0;  // user + system time since the process started
  double rss_mb = 0;       // resident set, MiB
};

// Samples `pid`; pass getpid() for this process. Returns an invalid sample for pid <= 0.
ProcessSample SampleProcess(pid_t pid);

// Machine-wide CPU time from the first line of /proc/stat, to see what else loads the machine.
struct MachineSample {
  bool valid = false;
  double busy_seconds = 0;   // user + nice + system + irq + softirq, summed over cores
  double steal_seconds = 0;  // time the hypervisor ran someone else on our virtual cores
};
MachineSample SampleMachine();

// The q-quantile (0..1) of `values` by nearest rank; sorts them. 0 for an empty vector.
double Quantile(std::vector<uint32_t>& values, double q);

}  // namespace cosmos::bench
