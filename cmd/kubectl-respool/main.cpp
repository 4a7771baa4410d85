// kubectl-respool: the kubectl plugin (`kubectl respool ...`) that shows resource pools, their
// nodes and jobs, and a job's tasks' use, as kubectl prints objects. kubectl finds it on PATH
// by its name and passes every word after "respool".

#include <iostream>

#include "cmd/kubectl-respool/commands.hpp"
#include "cmd/kubectl-respool/view/help.hpp"

using namespace respool::kubectl;

int main(int argc, char** argv) {
  auto inv = parse_args(std::vector<std::string>(argv + 1, argv + argc));
  if (!inv) {
    std::cerr << "error: " << inv.error().message << "\n" << see_help(inv.error().command) << "\n";
    return 1;
  }
  if (inv->help || inv->command.empty()) {
    // kubectl prints a group's help for the bare group; asking for it is not an error.
    std::cout << help_text(inv->command);
    return 0;
  }
  if (!is_command(inv->command)) {
    std::string name = inv->command.front();
    for (std::size_t i = 1; i < inv->command.size(); ++i)
      name += " " + inv->command[i];
    std::cerr << "error: unknown command \"" << name << "\" for \"kubectl respool\"\n"
              << see_help({}) << "\n";
    return 1;
  }
  if (inv->command.front() == "status") return run_status(*inv);
  if (inv->command.front() == "jobs") return run_jobs(*inv);
  if (inv->command.front() == "nodes") return run_nodes(*inv);
  return run_top_job(*inv);
}
