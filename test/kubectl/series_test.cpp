// Prometheus' query_range answers, summaries, sparklines and the queries top sends.

#include <catch2/catch.hpp>

#include "cmd/kubectl-respool/view/series.hpp"
#include "cmd/kubectl-respool/view/top_view.hpp"

using namespace respool::kubectl;

namespace {

std::vector<Sample> values(std::initializer_list<double> vs) {
  std::vector<Sample> out;
  double t = 1000;
  for (double v : vs)
    out.push_back({t += 60, v});
  return out;
}

}  // namespace

TEST_CASE("a matrix answer") {
  auto series = parse_query_range(R"({"status":"success","data":{"resultType":"matrix","result":[
    {"metric":{"task":"worker-3"},"values":[[1700000000,"33"],[1700000060.5,"34.5"]]},
    {"metric":{"task":"worker-1"},"values":[[1700000000,"NaN"],[1700000060,"oops"]]}]}})");
  REQUIRE(series);
  REQUIRE(series->size() == 2);
  CHECK((*series)[0].labels.at("task") == "worker-3");
  REQUIRE((*series)[0].samples.size() == 2);
  CHECK((*series)[0].samples[1].time == 1700000060.5);
  CHECK((*series)[0].samples[1].value == 34.5);
  CHECK((*series)[1].samples.size() == 1);  // "oops" is not a number; NaN is
  CHECK(parse_query_range(R"({"status":"success","data":{"resultType":"matrix","result":[]}})")
            ->empty());
}

TEST_CASE("an error answer or a body that is not the API's") {
  CHECK(parse_query_range(R"({"status":"error","errorType":"bad_data","error":"parse error"})")
            .error() == "bad_data: parse error");
  CHECK_FALSE(parse_query_range("<html>"));
  CHECK_FALSE(parse_query_range(R"({"status":"success","data":{"result":5}})"));
  CHECK_FALSE(parse_query_range(R"([1,2])"));
}

TEST_CASE("summary and sparkline") {
  auto s = summarize(values({5, 1, 9, 3}));
  REQUIRE(s);
  CHECK(s->latest == 3);
  CHECK(s->min == 1);
  CHECK(s->max == 9);
  CHECK_FALSE(summarize({}));
  CHECK(sparkline(values({0, 1, 2, 3, 4, 5, 6, 7})) == "▁▂▃▄▅▆▇█");
  CHECK(sparkline(values({33, 33, 33})) == "▁▁▁");
  CHECK(sparkline(values({0, 100, 0, 7})) == "▁█▁▁");
  CHECK(sparkline(values({1, 2, 3}), 2) == "▁█");  // the last `width` samples, rescaled
  CHECK(sparkline({}).empty());
  CHECK(format_value(33) == "33");
  CHECK(format_value(12.5) == "12.5");
  CHECK(format_value(1.0 / 3) == "0.33");
  CHECK(format_value(-0.001) == "0");
}

TEST_CASE("the queries: one series per task, PromQL strings quoted, the URL encoded") {
  CHECK(task_metric_query("ma_container_gpu_util", "default", "llm") ==
        R"(avg by (task) (ma_container_gpu_util{namespace="default",job="llm"}))");
  CHECK(task_metric_query("ma_container_memory_used_megabytes", "a", "b\"c") ==
        R"(sum by (task) (ma_container_memory_used_megabytes{namespace="a",job="b\"c"}))");
  CHECK(query_range_target("/prom/", "up{a=\"b\"}", 3'700'250) ==
        "/prom/api/v1/query_range?query=up%7Ba%3D%22b%22%7D&start=100.250&end=3700.250&step=60");
}

TEST_CASE("the top table: tasks in index order, a missing series is no data") {
  Series w10{{{"task", "worker-10"}}, values({1, 2})};
  Series w2{{{"task", "worker-2"}}, values({40, 33})};
  std::vector<MetricSeries> metrics{{"ma_container_gpu_util", {w10, w2}},
                                    {"ma_container_npu_util", {}}};
  CHECK(render(top_table(metrics)) ==
        "TASK        SERIES     LATEST    MIN      MAX      LAST-HOUR\n"
        "<none>      npu_util   no data   <none>   <none>   <none>\n"
        "worker-2    gpu_util   33        33       40       █▁\n"
        "worker-10   gpu_util   2         1        2        ▁█\n");
  auto data = top_data("default", "llm", metrics);
  CHECK(data["metrics"][0]["series"][1]["task"] == "worker-2");
  CHECK(data["metrics"][0]["series"][1]["values"][1][1] == 33.0);
  CHECK(data["metrics"][1]["series"].empty());
}
