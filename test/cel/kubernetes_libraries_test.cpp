// The Kubernetes CEL libraries CRD rules use (k8s.io/apiserver/pkg/cel/library), which CEL's
// conformance suite does not cover: each expression below must evaluate to true, or to an
// error containing the given text. Expected values follow the library's documentation and
// tests.

#include "sandbox/cel/eval.hpp"
#include "sandbox/cel/parser.hpp"

using namespace respool::sandbox::cel;

namespace {

Value run(const std::string& text) {
  ParseResult parsed = parse(text);
  if (!parsed.expr) return Value::error(format_issues(text, parsed.issues));
  return evaluate(*parsed.expr, {}).value;
}

void holds(const std::string& text) {
  INFO(text);
  Value v = run(text);
  INFO(debug_string(v));
  CHECK(v.is(Kind::Bool));
  CHECK((v.is(Kind::Bool) && v.as_bool()));
}

void fails(const std::string& text, const std::string& error) {
  INFO(text);
  Value v = run(text);
  INFO(debug_string(v));
  REQUIRE(v.is_error());
  CHECK(v.text().find(error) != std::string::npos);
}

}  // namespace

TEST_CASE("lists: sum, min, max, indexOf, lastIndexOf, isSorted") {
  holds("[1, 2, 3].sum() == 6");
  holds("[].sum() == 0");
  holds("[1.5, 2.5].sum() == 4.0");
  holds("[duration('1s'), duration('2s')].sum() == duration('3s')");
  holds("[3, 1, 2].min() == 1 && [3, 1, 2].max() == 3");
  holds("['b', 'a'].min() == 'a'");
  holds("[1, 2, 1].indexOf(1) == 0 && [1, 2, 1].lastIndexOf(1) == 2 && [1].indexOf(5) == -1");
  holds("[1, 2, 2, 3].isSorted() && !['b', 'a'].isSorted()");
  fails("[].min()", "min called on empty list");
  fails("[9223372036854775807, 1].sum()", "overflow");
}

TEST_CASE("regex: find and findAll with RE2 syntax") {
  holds("'abc 123'.find('[0-9]+') == '123'");
  holds("'abc'.find('[0-9]+') == ''");
  holds("'123 abc 456'.findAll('[0-9]+') == ['123', '456']");
  holds("'123 abc 456'.findAll('[0-9]+', 1) == ['123']");
  holds("'AbC'.matches('(?i)^abc$')");
  holds("'x'.matches('\\\\pL')");  // Unicode classes: RE2 has them, std::regex has not
  fails("'a'.matches('(')", "error parsing regexp");
}

TEST_CASE("quantity") {
  holds("quantity('1.5Gi').isGreaterThan(quantity('1G'))");
  holds("quantity('500m').compareTo(quantity('0.5')) == 0");
  holds(
      "quantity('2').add(3).asInteger() == 5 && "
      "quantity('2').sub(quantity('500m')).asApproximateFloat() == 1.5");
  holds("isQuantity('100Mi') && !isQuantity('1.2.3')");
  holds("quantity('-1').sign() == -1 && quantity('1k').isInteger() && !quantity('1m').isInteger()");
  fails("quantity('1m').asInteger()", "cannot convert value to integer");
}

TEST_CASE("ip and cidr") {
  holds("ip('10.0.0.1').family() == 4 && ip('::1').family() == 6");
  holds("ip('127.0.0.1').isLoopback() && ip('0.0.0.0').isUnspecified()");
  holds("ip('169.254.1.1').isLinkLocalUnicast() && ip('8.8.8.8').isGlobalUnicast()");
  holds("ip.isCanonical('2001:db8::1') && !ip.isCanonical('2001:DB8::1')");
  holds("string(ip('2001:0db8:0000:0000:0000:0000:0000:0001')) == '2001:db8::1'");
  holds("isIP('1.2.3.4') && !isIP('1.2.3') && !isIP('01.2.3.4')");
  holds(
      "cidr('10.0.0.0/8').containsIP('10.1.2.3') && "
      "!cidr('10.0.0.0/8').containsIP(ip('11.0.0.1'))");
  holds(
      "cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16') && "
      "!cidr('10.1.0.0/16').containsCIDR('10.0.0.0/8')");
  holds(
      "cidr('192.168.1.5/24').masked() == cidr('192.168.1.0/24') && "
      "cidr('192.168.1.5/24').prefixLength() == 24");
  holds("cidr('192.168.1.5/24').ip() == ip('192.168.1.5')");
  fails("ip('::ffff:1.2.3.4')", "IPv4-mapped IPv6 address");
  fails("cidr('10.0.0.0/33')", "parse error");
}

TEST_CASE("url") {
  holds("url('https://user@example.com:8443/a/b?x=1&x=2&y').getHost() == 'example.com:8443'");
  holds(
      "url('https://example.com:8443/a').getHostname() == 'example.com' && "
      "url('https://example.com:8443/a').getPort() == '8443'");
  holds("url('https://[::1]:80/').getHostname() == '::1'");
  holds("url('https://example.com/a/b?x=1&x=2').getQuery() == {'x': ['1', '2']}");
  holds(
      "url('/absolute/path').getEscapedPath() == '/absolute/path' && "
      "url('http://e.com').getScheme() == 'http'");
  holds("isURL('https://example.com') && !isURL('not a url') && !isURL('relative/path')");
}

TEST_CASE("format library") {
  holds("!format.dns1123Label().validate('my-name').hasValue()");
  holds("format.dns1123Label().validate('My_Name').value().size() == 1");
  holds("format.dns1123Label().validate('a.b').value() == ['must not contain dots']");
  holds("!format.dns1123LabelPrefix().validate('prefix-').hasValue()");
  holds("!format.qualifiedName().validate('example.com/MyName').hasValue()");
  holds("format.labelValue().validate('-bad').hasValue()");
  holds("!format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue()");
  holds("format.byte().validate('not base64!').value() == ['invalid base64']");
  holds(
      "!format.date().validate('2021-01-01').hasValue() && "
      "format.datetime().validate('x').hasValue()");
  holds("format.named('dns1035Label').hasValue() && !format.named('nope').hasValue()");
}

TEST_CASE("sets and optionals") {
  holds("sets.contains([1, 2, 3], [3, 1]) && !sets.contains([1], [2])");
  holds("sets.equivalent([1, 2, 1], [2, 1]) && sets.intersects([1, 2], [2, 5])");
  holds("optional.of(1).orValue(2) == 1 && optional.none().orValue(2) == 2");
  holds("{'a': 1}.?a.orValue(0) == 1 && {'a': 1}.?b.orValue(0) == 0");
  holds("[1, 2][?5].hasValue() == false && optional.ofNonZeroValue('').hasValue() == false");
  holds("cel.bind(x, [1, 2, 3], x.size() + x.sum()) == 9");
  fails("optional.none().value()", "optional.none() dereference");
}
