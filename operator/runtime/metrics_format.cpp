// Number formatting, escaping and bucket layouts of the Prometheus text format, matching
// client_golang and prometheus/common's expfmt byte for byte.

#include <stdexcept>

#include "apimachinery/go_format.hpp"
#include "operator/runtime/metrics.hpp"

namespace respool::runtime {

std::string format_metric_value(double v) {
  // expfmt's writeFloat: either zero is "0", else strconv.FormatFloat(v, 'g', -1, 64).
  if (v == 0) return "0";
  return apimachinery::go_float(v);
}

std::string escape_label_value(const std::string& v) {
  std::string out;
  out.reserve(v.size());
  for (const char c : v) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::vector<double> exponential_buckets(double start, double factor, int count) {
  if (count < 1 || start <= 0 || factor <= 1) {
    throw std::invalid_argument("exponential_buckets: needs count >= 1, start > 0, factor > 1");
  }
  // Multiplied step by step, as client_golang does: its `le` values carry the same rounding
  // (9.999999999999999e-06, not 1e-05), and dashboards match on them.
  std::vector<double> buckets;
  for (int i = 0; i < count; ++i) {
    buckets.push_back(start);
    start *= factor;
  }
  return buckets;
}

std::vector<double> linear_buckets(double start, double width, int count) {
  if (count < 1 || width <= 0) {
    throw std::invalid_argument("linear_buckets: needs count >= 1 and width > 0");
  }
  std::vector<double> buckets;
  for (int i = 0; i < count; ++i) {
    buckets.push_back(start);
    start += width;
  }
  return buckets;
}

std::vector<double> default_buckets() {
  return {.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10};
}

std::vector<double> reconcile_time_buckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1,  0.15, 0.2,  0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6,
          0.7,   0.8,  0.9,   1.0,  1.25, 1.5,  1.75, 2.0,  2.5, 3.0,  3.5, 4.0,  4.5, 5,
          6,     7,    8,     9,    10,   15,   20,   25,   30,  40,   50,  60};
}

std::vector<double> workqueue_duration_buckets() {
  return exponential_buckets(10e-9, 10, 10);
}

}  // namespace respool::runtime
