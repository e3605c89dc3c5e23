// NameThisThread: gives the calling thread a short name that top -H, perf and gdb show, so that
// a profile tells the I/O threads, the write thread and the background threads apart.
// Thread-safety: names only the calling thread.
#pragma once

#include <pthread.h>

namespace cosmos {

// Linux keeps at most 15 characters; longer names are cut.
inline void NameThisThread(const char* name) {
  char truncated[16] = {};
  for (int index = 0; index < 15 && name[index] != '\0'; ++index) truncated[index] = name[index];
  pthread_setname_np(pthread_self(), truncated);
}

}  // namespace cosmos
