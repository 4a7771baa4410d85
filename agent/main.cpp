// respool-node-agent: checks its node's GPUs, NPUs, InfiniBand ports, clock and kubelet
// directory each period, and reports the findings as conditions on its own Node.

#include <csignal>
#include <iostream>

#include "agent/expectations.hpp"
#include "agent/options.hpp"
#include "agent/print_readings.hpp"
#include "operator/kube/yaml.hpp"
#include "operator/runtime/log.hpp"

using namespace respool;

namespace {

std::expected<policy::Catalog, std::string> load_catalog(const std::string& file) {
  auto document = kube::yaml_file_to_json(file);
  if (!document) return std::unexpected("--catalog: " + document.error());
  auto catalog = policy::parse_catalog(*document);
  if (!catalog) return std::unexpected("--catalog: " + file + ": " + catalog.error());
  return catalog;
}

// --print-readings without a node: the flavor comes from --flavor.
int print_without_node(const agent::AgentFlags& flags, agent::CheckerOptions options) {
  agent::Expectations expect;
  if (!flags.catalog.empty()) {
    auto catalog = load_catalog(flags.catalog);
    if (!catalog) {
      std::cerr << "Error: " << catalog.error() << "\n";
      return 2;
    }
    expect = agent::expectations_for_flavor(*catalog, flags.flavor);
  }
  agent::Checker checker(std::move(options), runtime::real_clock());
  for (;;) {
    agent::print_period(std::cout, checker.run(expect), expect);
    if (flags.once) return 0;
    runtime::real_clock().sleep_for(
        std::chrono::duration_cast<runtime::Duration>(flags.check_period));
  }
}

}  // namespace

int main(int argc, char** argv) {
  agent::AgentFlags flags;
  runtime::FlagSet set("respool-node-agent",
                       "respool-node-agent checks its node's accelerators, InfiniBand, clock and "
                       "kubelet directory, and reports them as conditions on its Node.");
  agent::add_flags(set, flags);
  if (auto parsed = set.parse(argc, argv); !parsed) {
    std::cerr << "Error: " << parsed.error() << "\n\n" << set.usage();
    return 2;
  }
  if (set.help_requested()) {
    std::cout << set.usage();
    return 0;
  }
  if (flags.version) {
    std::cout << "respool-node-agent " << RESPOOL_VERSION << "\n";
    return 0;
  }
  runtime::log::Format format;
  runtime::log::Level level;
  if (!runtime::log::parse_format(flags.log_format, format) ||
      !runtime::log::parse_level(flags.log_level, level)) {
    std::cerr << "Error: invalid --log-format or --log-level\n";
    return 2;
  }
  runtime::log::configure(format, level);
  auto options = agent::checker_options(flags);
  if (!options) {
    std::cerr << "Error: " << options.error() << "\n";
    return 2;
  }
  if (flags.print_readings && !set.changed("node-name")) {
    if (!set.changed("state-dir")) options->state_file.clear();  // a look, not a run
    return print_without_node(flags, std::move(*options));
  }
  std::cerr << "Error: reporting to a Node needs --node-name; use --print-readings to look\n";
  return 2;
}
