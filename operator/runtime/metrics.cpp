#include "operator/runtime/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <type_traits>

namespace respool::runtime {

namespace {

bool valid_name(const std::string& name, bool allow_colon) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (allow_colon && c == ':');
    const bool digit = c >= '0' && c <= '9';
    if (!letter && !(digit && i > 0)) return false;
  }
  return true;
}

std::string escape_help(const std::string& help) {
  std::string out;
  for (const char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

const char* type_name(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

template <class Metric>
constexpr MetricType type_of() {
  if constexpr (std::is_same_v<Metric, Counter>) {
    return MetricType::kCounter;
  } else if constexpr (std::is_same_v<Metric, Gauge>) {
    return MetricType::kGauge;
  } else {
    return MetricType::kHistogram;
  }
}

// `name{labels} value` for a labelled or unlabelled sample.
void sample_line(std::string& out, const std::string& name, const std::string& prefix,
                 double value) {
  out += name;
  if (!prefix.empty()) {
    out += prefix;
    out += '}';
  }
  out += ' ';
  out += format_metric_value(value);
  out += '\n';
}

}  // namespace

void Counter::inc(double by) {
  if (by < 0 || std::isnan(by)) throw std::invalid_argument("counter cannot decrease");
  value_.fetch_add(by, std::memory_order_relaxed);
}

Histogram::Histogram(std::shared_ptr<const std::vector<double>> upper_bounds)
    : upper_bounds_(std::move(upper_bounds)), counts_(upper_bounds_->size() + 1, 0) {}

void Histogram::observe(double v) {
  // Bucket `le` holds every value <= le: the first bound not below v.
  const auto& bounds = *upper_bounds_;
  const auto bucket =
      static_cast<std::size_t>(std::lower_bound(bounds.begin(), bounds.end(), v) - bounds.begin());
  std::lock_guard guard(mutex_);
  ++counts_[bucket];
  ++count_;
  sum_ += v;
}

Histogram::Snapshot Histogram::snapshot() const {
  Snapshot s;
  std::lock_guard guard(mutex_);
  s.cumulative.resize(counts_.size());
  std::partial_sum(counts_.begin(), counts_.end(), s.cumulative.begin());
  s.count = count_;
  s.sum = sum_;
  return s;
}

FamilyBase::FamilyBase(std::string name, std::string help, MetricType type,
                       std::vector<std::string> label_names, std::vector<double> buckets)
    : name_(std::move(name)),
      help_(std::move(help)),
      type_(type),
      label_names_(std::move(label_names)),
      buckets_(std::make_shared<const std::vector<double>>(std::move(buckets))) {
  if (!valid_name(name_, true)) throw std::invalid_argument("bad metric name: " + name_);
  for (const auto& label : label_names_) {
    if (!valid_name(label, false) || label.starts_with("__") ||
        (type_ == MetricType::kHistogram && label == "le")) {
      throw std::invalid_argument("bad label name for " + name_ + ": " + label);
    }
  }
  by_name_.resize(label_names_.size());
  std::iota(by_name_.begin(), by_name_.end(), std::size_t{0});
  std::sort(by_name_.begin(), by_name_.end(),
            [&](std::size_t a, std::size_t b) { return label_names_[a] < label_names_[b]; });
  if (std::adjacent_find(by_name_.begin(), by_name_.end(), [&](std::size_t a, std::size_t b) {
        return label_names_[a] == label_names_[b];
      }) != by_name_.end()) {
    throw std::invalid_argument("duplicate label name for " + name_);
  }
  const auto& b = *buckets_;
  if (std::adjacent_find(b.begin(), b.end(), std::greater_equal<>()) != b.end() ||
      std::any_of(b.begin(), b.end(), [](double x) { return std::isnan(x) || std::isinf(x); })) {
    throw std::invalid_argument("histogram buckets must be finite and increasing: " + name_);
  }
}

std::vector<std::string> FamilyBase::sorted_key(const std::vector<std::string>& values) const {
  if (values.size() != label_names_.size()) {
    throw std::invalid_argument(name_ + " takes " + std::to_string(label_names_.size()) +
                                " label values, not " + std::to_string(values.size()));
  }
  std::vector<std::string> key;
  key.reserve(values.size());
  for (const std::size_t i : by_name_)
    key.push_back(values[i]);
  return key;
}

std::string FamilyBase::label_prefix(const std::vector<std::string>& key) const {
  std::string out;
  for (std::size_t i = 0; i < key.size(); ++i) {
    out += i == 0 ? '{' : ',';
    out += label_names_[by_name_[i]];
    out += "=\"";
    out += escape_label_value(key[i]);
    out += '"';
  }
  return out;
}

void FamilyBase::render_header(std::string& out) const {
  out += "# HELP " + name_ + ' ' + escape_help(help_) + '\n';
  out += "# TYPE " + name_ + ' ' + type_name(type_) + '\n';
}

template <class Metric>
Family<Metric>::Family(std::string name, std::string help, std::vector<std::string> label_names,
                       std::vector<double> buckets)
    : FamilyBase(std::move(name), std::move(help), type_of<Metric>(), std::move(label_names),
                 std::move(buckets)) {}

template <class Metric>
std::shared_ptr<Metric> Family<Metric>::with(const std::vector<std::string>& label_values) {
  auto key = sorted_key(label_values);
  std::lock_guard guard(mutex_);
  auto it = children_.find(key);
  if (it == children_.end()) {
    std::shared_ptr<Metric> child;
    if constexpr (std::is_same_v<Metric, Histogram>) {
      child = std::make_shared<Histogram>(shared_buckets());
    } else {
      child = std::make_shared<Metric>();
    }
    it = children_.emplace(std::move(key), std::move(child)).first;
  }
  return it->second;
}

template <class Metric>
bool Family<Metric>::remove(const std::vector<std::string>& label_values) {
  const auto key = sorted_key(label_values);
  std::lock_guard guard(mutex_);
  return children_.erase(key) > 0;
}

template <class Metric>
std::size_t Family<Metric>::size() const {
  std::lock_guard guard(mutex_);
  return children_.size();
}

template <class Metric>
void Family<Metric>::render(std::string& out) const {
  std::lock_guard guard(mutex_);
  if (children_.empty()) return;
  render_header(out);
  for (const auto& [key, child] : children_) {
    const std::string prefix = label_prefix(key);
    if constexpr (std::is_same_v<Metric, Histogram>) {
      const auto snap = child->snapshot();
      const std::string bucket_name = name() + "_bucket";
      const std::string open = prefix.empty() ? "{le=\"" : prefix + ",le=\"";
      const auto& bounds = buckets();
      for (std::size_t i = 0; i <= bounds.size(); ++i) {
        const double le = i < bounds.size() ? bounds[i] : INFINITY;
        out += bucket_name + open + format_metric_value(le) + "\"} ";
        out += format_metric_value(static_cast<double>(snap.cumulative[i])) + '\n';
      }
      sample_line(out, name() + "_sum", prefix, snap.sum);
      sample_line(out, name() + "_count", prefix, static_cast<double>(snap.count));
    } else {
      sample_line(out, name(), prefix, child->value());
    }
  }
}

template class Family<Counter>;
template class Family<Gauge>;
template class Family<Histogram>;

}  // namespace respool::runtime
