#include "engine/request_charge.h"

#include <algorithm>
#include <cmath>

namespace cosmos::engine {
namespace {

double RoundToHundredths(double value) { return std::round(value * 100.0) / 100.0; }

double Kilobytes(size_t bytes) { return static_cast<double>(bytes) / 1024.0; }

}  // namespace

double ReadCharge(size_t bytes) { return RoundToHundredths(std::max(1.0, Kilobytes(bytes))); }

double WriteCharge(size_t bytes) {
  return RoundToHundredths(5.0 * std::max(1.0, Kilobytes(bytes)));
}

double MetadataReadCharge() { return 1.0; }

double MetadataWriteCharge() { return 5.0; }

double FailedRequestCharge() { return 1.0; }

}  // namespace cosmos::engine
