#pragma once
// The soak's one source of chance: a seeded generator, so that a seed replays the same schedule
// of actions (what the cluster does in answer still varies with timing).

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace respool::soak {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  // In [low, high].
  int between(int low, int high) { return std::uniform_int_distribution<int>(low, high)(engine_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(engine_); }
  template <class T>
  const T& pick(const std::vector<T>& from) {
    return from[static_cast<std::size_t>(between(0, int(from.size()) - 1))];
  }
  // An index by weight.
  std::size_t weighted(const std::vector<int>& weights) {
    return std::discrete_distribution<std::size_t>(weights.begin(), weights.end())(engine_);
  }
  // A child generator for another thread: its own sequence, fixed by this one's.
  Rng fork() { return Rng(engine_()); }

 private:
  std::mt19937_64 engine_;
};

}  // namespace respool::soak
