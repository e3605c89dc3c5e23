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

double QueryCharge(uint64_t documents_loaded, uint64_t document_bytes, uint64_t output_bytes, uint64_t expressions,
                   uint64_t function_work) {
  // A query that touches nothing still costs about what the service charges for an empty page.
  constexpr double kBase = 2.3;
  double charge = kBase + 0.05 * static_cast<double>(documents_loaded) + 0.02 * Kilobytes(document_bytes) +
                  0.1 * Kilobytes(output_bytes) + 0.0002 * static_cast<double>(expressions) +
                  0.01 * static_cast<double>(function_work);
  return RoundToHundredths(charge);
}

double FailedRequestCharge() { return 1.0; }

}  // namespace cosmos::engine
