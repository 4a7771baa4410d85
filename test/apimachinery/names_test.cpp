#include <catch2/catch.hpp>

#include "apimachinery/names.hpp"

using namespace respool::apimachinery;

TEST_CASE("DNS-1123 labels and subdomains", "[names]") {
  CHECK(is_dns1123_label("a"));
  CHECK(is_dns1123_label("1gpu"));
  CHECK(is_dns1123_label(std::string(63, 'a')));
  CHECK_FALSE(is_dns1123_label(std::string(64, 'a')));
  CHECK_FALSE(is_dns1123_label("a.b"));
  CHECK_FALSE(is_dns1123_label("-a"));
  CHECK_FALSE(is_dns1123_label("A"));
  CHECK_FALSE(is_dns1123_label(""));
  CHECK(is_dns1123_subdomain("example.com"));
  CHECK(is_dns1123_subdomain(std::string(253, 'a')));
  CHECK_FALSE(is_dns1123_subdomain(std::string(254, 'a')));
  CHECK_FALSE(is_dns1123_subdomain("a..b"));
  CHECK(dns1123_label_errors("a.b") == std::vector<std::string>{"must not contain dots"});
  CHECK(dns1123_label_errors(std::string(64, 'a')) ==
        std::vector<std::string>{"must be no more than 63 characters"});
  CHECK(dns1123_subdomain_errors("A") ==
        std::vector<std::string>{
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
            "'-' or '.', and must start and end with an alphanumeric character (e.g. "
            "'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"});
  CHECK(dns1035_label_errors("1a") ==
        std::vector<std::string>{
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start "
            "with an alphabetic character, and end with an alphanumeric character (e.g. "
            "'my-name',  or 'abc-123', regex used for validation is "
            "'[a-z]([-a-z0-9]*[a-z0-9])?')"});
  CHECK(dns1035_label_errors("a1").empty());
}

TEST_CASE("label keys and values", "[names]") {
  CHECK(is_qualified_name("node.kubernetes.io/instance-type"));
  CHECK(is_qualified_name("team"));
  CHECK(is_qualified_name("My_Name.1"));
  CHECK_FALSE(is_qualified_name("/x"));
  CHECK_FALSE(is_qualified_name("a/b/c"));
  CHECK_FALSE(is_qualified_name("x/"));
  CHECK_FALSE(is_qualified_name(std::string(64, 'a')));
  CHECK(is_label_value(""));
  CHECK(is_label_value("az-1"));
  CHECK_FALSE(is_label_value("-az"));
  CHECK_FALSE(is_label_value(std::string(64, 'a')));
  CHECK(qualified_name_errors("/x") == std::vector<std::string>{"prefix part must be non-empty"});
  CHECK(label_value_errors(std::string(64, 'a')) ==
        std::vector<std::string>{"must be no more than 63 characters"});
}

// The policy's copy held each label of a key's DNS prefix to 63 characters; IsQualifiedName
// checks the prefix with IsDNS1123Subdomain, which limits only the whole (253) and the syntax.
TEST_CASE("a label key's prefix is a subdomain, not a list of labels", "[names]") {
  CHECK(is_qualified_name(std::string(64, 'a') + ".example.com/key"));
  CHECK_FALSE(is_qualified_name(std::string(254, 'a') + "/key"));
}
