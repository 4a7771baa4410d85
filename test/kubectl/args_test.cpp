// kubectl respool's command line: kubectl's flag forms, and its usage errors.

#include <catch2/catch.hpp>

#include "cmd/kubectl-respool/view/args.hpp"
#include "cmd/kubectl-respool/view/help.hpp"

using namespace respool::kubectl;
using Words = std::vector<std::string>;

TEST_CASE("flags in every form kubectl takes, anywhere on the line") {
  auto inv = parse_args({"-n", "team-a", "top", "--context=c1", "job", "llm", "-ojson",
                         "--kubeconfig", "/k", "--prometheus-url=http://p:9090"});
  REQUIRE(inv);
  CHECK(inv->command == Words{"top", "job"});
  CHECK(inv->args == Words{"llm"});
  CHECK(inv->ns == "team-a");
  CHECK(inv->context == "c1");
  CHECK(inv->kubeconfig == "/k");
  CHECK(inv->output == Output::Json);
  CHECK(inv->prometheus_url == "http://p:9090");
  CHECK(parse_args({"jobs", "p", "--namespace", "x", "-o", "wide"})->output == Output::Wide);
  CHECK(parse_args({"jobs", "p", "-n=x"})->ns == "x");
  CHECK(parse_args({"status", "--output=yaml"})->output == Output::Yaml);
}

TEST_CASE("help and the bare plugin") {
  CHECK(parse_args({"status", "--help"})->help);
  CHECK(parse_args({"-h"})->command.empty());
  CHECK(help_text({"top", "job"}).find("kubectl respool top job NAME") != std::string::npos);
  CHECK(help_text({}).find("Available Commands:") != std::string::npos);
  CHECK(help_text({"jobs"}).find("--kubeconfig") != std::string::npos);
}

TEST_CASE("usage errors as kubectl words them") {
  auto unknown = parse_args({"status", "--bogus"});
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message == "unknown flag: --bogus");
  CHECK(unknown.error().command == Words{"status"});
  CHECK(see_help(unknown.error().command) ==
        "See 'kubectl respool status -h' for help and examples.");
  CHECK(parse_args({"jobs", "-x"}).error().message == "unknown shorthand flag: 'x' in -x");
  CHECK(parse_args({"jobs", "p", "-n"}).error().message == "flag needs an argument: --namespace");
  CHECK(parse_args({"status", "-o", "table"}).error().message ==
        "unable to match a printer suitable for the output format \"table\", allowed formats are: "
        "json,wide,yaml");
  CHECK(see_help({"frobnicate"}) == "See 'kubectl respool -h' for help and examples.");
}

TEST_CASE("the commands there are") {
  CHECK(is_command({"status"}));
  CHECK(is_command({"top", "job"}));
  CHECK_FALSE(is_command({"top"}));
  CHECK_FALSE(is_command({"top", "node"}));
  // "--" ends the flags: what follows is an argument even if it starts with "-".
  CHECK(parse_args({"jobs", "--", "-p"})->args == Words{"-p"});
}
