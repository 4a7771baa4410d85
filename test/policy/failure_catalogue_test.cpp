// Code-error detection (O3, O7, O8): every entry of the shipped catalogue (config/catalog.yaml)
// recognises a real-world sample of its failure as PyTorch, NCCL, CUDA, the NVIDIA driver and
// Ascend CANN print it; the report's key lines and traceback; a bad entry refuses the catalog,
// naming its field; and the matcher survives any input within its bounds (fuzzed).

#include <random>

#include <catch2/catch.hpp>

#include "reconcilers/policy/catalog.hpp"
#include "reconcilers/policy/failure_catalogue.hpp"
#include "reconcilers/policy/failure_match.hpp"
#include "test/policy/shipped_catalogue.hpp"
#include "yaml_json.hpp"

using namespace respool::policy;
using respool::policy::test::load_yaml;
using respool::policy::test::shipped;

namespace {

// The name of the entry that matches, or "" for none.
std::string matched(const std::string& log, WorkerFailure worker = {1, "Error"}) {
  auto finding = match_failure(shipped(), worker, log);
  return finding ? shipped().entries()[finding->entry].name : "";
}

struct Sample {
  const char* entry;
  const char* log;
  WorkerFailure worker;
};

// One sample per entry, each line as its framework prints it.
const std::vector<Sample> kSamples = {
    {"host-out-of-memory", "epoch 3 step 1200 loss 1.82\n", {137, "OOMKilled"}},
    {"cuda-out-of-memory",
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
     "capacity of 79.15 GiB of which 1.23 GiB is free. Process 41234 has 77.90 GiB memory in "
     "use.\n",
     {1, "Error"}},
    {"npu-out-of-memory",
     "RuntimeError: NPU out of memory. Tried to allocate 1.17 GiB (NPU 3; 60.97 GiB total "
     "capacity; 57.81 GiB already allocated; 57.81 GiB current active; 512.00 MiB free)\n",
     {1, "Error"}},
    {"nccl-timeout",
     "[rank3]:[E ProcessGroupNCCL.cpp:563] [Rank 3] Watchdog caught collective operation timeout: "
     "WorkNCCL(SeqNum=10452, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, "
     "Timeout(ms)=600000) ran for 600096 milliseconds before timing out.\n",
     {6, "Error"}},
    {"nccl-error",
     "node-7:1234:5678 [3] NCCL WARN NET/IB : Got completion from peer 10.0.0.12<53122> with "
     "error 12, opcode 0, len 0, vendor err 129 (Recv)\n",
     {1, "Error"}},
    {"hccl-error",
     "EI0006: Getting socket times out. Reason: 1. The remote does not initiate a connect "
     "request. some NPUs in the cluster are abnormal.\n",
     {1, "Error"}},
    {"gpu-xid", "RuntimeError: CUDA error: uncorrectable ECC error encountered\n", {1, "Error"}},
    {"cuda-device-assert",
     "RuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might be "
     "asynchronously reported at some other API call, so the stacktrace below might be "
     "incorrect.\n",
     {1, "Error"}},
    {"cuda-runtime-error",
     "RuntimeError: CUDA error: no kernel image is available for execution on the device\n",
     {1, "Error"}},
    {"ascend-runtime-error",
     "[ERROR] RUNTIME(3817,python3):2024-05-11-10:23:45.123.456 [stream.cc:1042]3817 "
     "Synchronize:Stream synchronize failed, ret=507011\nEZ9999: Inner Error!\n",
     {1, "Error"}},
    {"missing-module", "ModuleNotFoundError: No module named 'transformers'\n", {1, "Error"}},
    {"missing-file",
     "FileNotFoundError: [Errno 2] No such file or directory: '/data/imagenet/train.json'\n",
     {1, "Error"}},
    {"permission-denied",
     "PermissionError: [Errno 13] Permission denied: '/output/checkpoints/step-1000'\n",
     {1, "Error"}},
    {"segmentation-fault", "Fatal Python error: Segmentation fault\n", {139, "Error"}},
    {"python-exception",
     "Traceback (most recent call last):\n  File \"/workspace/train.py\", line 12, in <module>\n"
     "    a, b = batch\nValueError: too many values to unpack (expected 2)\n",
     {1, "Error"}},
    {"killed-by-signal", "", {143, "Error"}},
};

bool valid_utf8(const std::string& s) {
  try {
    (void)nlohmann::json(s).dump();
    return true;
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

}  // namespace

TEST_CASE("O7: every shipped entry recognises a real sample of its failure",
          "[policy][failures][rule:O3][rule:O7]") {
  std::set<std::string> covered;
  for (const Sample& s : kSamples) {
    INFO(s.entry << ": " << s.log);
    CHECK(matched(s.log, s.worker) == s.entry);
    covered.insert(s.entry);
  }
  for (const FailureEntry& e : shipped().entries()) {
    INFO(e.name);
    CHECK(covered.contains(e.name));  // every entry has its sample above
    CHECK(is_anomaly_level(e.risk));
    CHECK_FALSE(e.solution.empty());
  }
  // An exit code alone, or the kubelet's reason alone, is enough.
  CHECK(matched("", {139, "Error"}) == "segmentation-fault");
  CHECK(matched("", {137, "OOMKilled"}) == "host-out-of-memory");
  CHECK(matched("", {137, "Error"}) == "killed-by-signal");
  // A failure nothing recognises gives no report.
  CHECK(matched("step 5 loss 0.3\nexiting\n", {1, "Error"}).empty());
  CHECK(matched("", {}).empty());
}

TEST_CASE("O3: the report's key lines, timestamps and the traceback's user frame",
          "[policy][failures][rule:O3]") {
  const std::string log =
      "2026-11-27T23:46:40.100000000Z epoch 3 step 1200 loss 1.82\n"
      "2026-11-27T23:46:44.180123456Z [rank0]: Traceback (most recent call last):\n"
      "2026-11-27T23:46:44.180223456Z [rank0]:   File \"/workspace/train.py\", line 212, in "
      "<module>\n"
      "2026-11-27T23:46:44.180323456Z [rank0]:     main()\n"
      "2026-11-27T23:46:44.180423456Z [rank0]:   File \"/workspace/train.py\", line 187, in main\n"
      "2026-11-27T23:46:44.180523456Z [rank0]:     loss = model(batch).loss\n"
      "2026-11-27T23:46:44.180623456Z [rank0]:   File "
      "\"/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py\", line 1518, in "
      "_wrapped_call_impl\n"
      "2026-11-27T23:46:44.180723456Z [rank0]:     return self._call_impl(*args, **kwargs)\n"
      "2026-11-27T23:46:44.180823456Z [rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried "
      "to allocate 2.00 GiB.\n";
  auto finding = match_failure(shipped(), {1, "Error"}, log);
  REQUIRE(finding);
  CHECK(shipped().entries()[finding->entry].name == "cuda-out-of-memory");
  CHECK(finding->matched_by == "log");
  REQUIRE(finding->traceback);
  CHECK(finding->traceback->exception == "torch.OutOfMemoryError");
  CHECK(finding->traceback->message == "CUDA out of memory. Tried to allocate 2.00 GiB.");
  CHECK(finding->traceback->file == "/workspace/train.py");  // the user's, not torch's
  CHECK(finding->traceback->line == 187);
  CHECK(finding->traceback->function == "main");
  REQUIRE(finding->key_lines.size() == 1);
  CHECK(finding->key_lines[0].time == "2026-11-27T23:46:44.180823456Z");
  CHECK(finding->key_lines[0].text.starts_with("[rank0]: torch.OutOfMemoryError: CUDA out"));

  // Matched by its exit alone, the log's last words are the key lines.
  auto by_exit = match_failure(shipped(), {139, "Error"}, "a\nb\n\nc\nd\n");
  REQUIRE(by_exit);
  CHECK(by_exit->matched_by == "exit code 139");
  REQUIRE(by_exit->key_lines.size() == 3);
  CHECK(by_exit->key_lines[0].text == "b");
  CHECK(by_exit->key_lines[2].text == "d");
}

TEST_CASE("O7: a bad entry refuses the catalog and names its field",
          "[policy][failures][rule:O7]") {
  const nlohmann::json good = nlohmann::json::parse(R"({"name": "x", "symptom": "s",
    "category": "Code", "component": "c", "module": "m", "risk": "High", "solution": "fix",
    "match": {"log": ["boom"]}})");
  CHECK(FailureCatalogue::parse(nlohmann::json::array({good})));
  CHECK(FailureCatalogue::parse(nullptr)->entries().empty());
  auto refused = [&](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json e = good;
    e["name"] = "y";
    change(e);
    auto r = FailureCatalogue::parse(nlohmann::json::array({good, e}));
    REQUIRE_FALSE(r);
    return r.error();
  };
  CHECK(refused([](auto& e) {
          e["match"]["log"] = {"ok", "(unclosed"};
        }).starts_with("failures[1].match.log[1]: not a valid RE2 pattern: missing )"));
  CHECK(refused([](auto& e) {
          e["match"]["log"] = {"(a{1000}){1000}"};
        }).starts_with("failures[1].match.log[0]: not a valid RE2 pattern"));
  CHECK(refused([](auto& e) { e["risk"] = "Critical"; }) ==
        "failures[1].risk: must be Low, Medium or High (O3)");
  CHECK(refused([](auto& e) { e["category"] = "Network"; }) ==
        "failures[1].category: must be Code, Framework, Communication, Hardware or Environment");
  CHECK(refused([](auto& e) { e["name"] = "x"; }) == "failures[1].name: \"x\" appears twice");
  CHECK(refused([](auto& e) { e["name"] = "Bad Name"; }).starts_with("failures[1].name: must be"));
  CHECK(refused([](auto& e) { e.erase("solution"); }) == "failures[1].solution: required");
  CHECK(refused([](auto& e) { e["match"] = nlohmann::json::object(); }) ==
        "failures[1].match: must give at least one of log, exitCodes, reasons");
  CHECK(refused([](auto& e) { e["match"]["exitCodes"] = {0}; }) ==
        "failures[1].match.exitCodes[0]: must be an exit code from 1 to 255");
  CHECK(refused([](auto& e) {
          e["match"]["exit"] = {1};
        }).starts_with("failures[1].match.exit: unknown field"));
  CHECK(refused([](auto& e) {
          e["severity"] = "High";
        }).starts_with("failures[1].severity: unknown field"));
  // Through the catalog: the whole catalog is refused.
  nlohmann::json catalog = load_yaml("config/catalog.yaml");
  catalog["failures"][0]["match"] = {{"log", {"[z-a]"}}};
  auto c = parse_catalog(catalog);
  REQUIRE_FALSE(c);
  CHECK(c.error().starts_with("failures[0].match.log[0]: not a valid RE2 pattern"));
}

TEST_CASE("O8: huge, binary and broken logs are read within bounds and never crash the matcher",
          "[policy][failures][rule:O8]") {
  // One 1 MiB line without a newline: only the last 64 KiB count, cut to kLineBytes.
  const std::string huge(1 << 20, 'x');
  auto lines = split_log(huge + "\nCUDA out of memory\n");
  REQUIRE(lines.size() == 1);  // the cut first line is dropped
  CHECK(matched(huge + "\nCUDA out of memory\n") == "cuda-out-of-memory");
  for (const auto& l : split_log(std::string(200000, 'y') + "\n" + std::string(50000, 'z')))
    CHECK(l.text.size() <= kLineBytes);
  // Control bytes and broken UTF-8 become '?', characters stay whole.
  auto odd = split_log(std::string("a\0b\x01\xff\xc3\xa9\xe2\x82", 9) + "\n");
  REQUIRE(odd.size() == 1);
  CHECK(odd[0].text == "a?b??\xc3\xa9??");
  // Broken tracebacks.
  CHECK_FALSE(last_traceback(split_log("Traceback (most recent call last):\n")));
  CHECK_FALSE(last_traceback(split_log("Traceback (most recent call last):\n  File \"x\n")));
  auto t = last_traceback(split_log(
      "Traceback (most recent call last):\n  File \"a.py\", line 99999999999999, in f\nE: m\n"));
  REQUIRE(t);
  CHECK(t->exception == "E");

  std::mt19937 random(20261128);
  const std::string alphabet = std::string(
                                   "Traceback (most recent call last):\n  File \"/a.py\", "
                                   "line 3, in f\nCUDA out of memory NCCL WARN EI0006 ") +
                               std::string("\0\xff\xc3\x80\n\r\t:[]()", 12);
  for (int round = 0; round < 2000; ++round) {
    std::string log;
    const std::size_t size = random() % (round % 100 == 0 ? 200000 : 2000);
    for (std::size_t i = 0; i < size; ++i)
      log += round % 2 ? static_cast<char>(random() % 256) : alphabet[random() % alphabet.size()];
    const WorkerFailure worker{static_cast<int>(random() % 256), random() % 2 ? "OOMKilled" : ""};
    auto finding = match_failure(shipped(), worker, log);
    if (!finding) continue;
    CHECK(finding->key_lines.size() <= kKeyLines);
    for (const auto& k : finding->key_lines) {
      CHECK(k.text.size() <= kKeyLineBytes);
      CHECK(valid_utf8(k.text));
      CHECK(valid_utf8(k.time));
    }
    if (finding->traceback) {
      CHECK(valid_utf8(finding->traceback->exception + finding->traceback->message +
                       finding->traceback->file + finding->traceback->function));
    }
  }
}

TEST_CASE("O7: the chart's default catalog ships the same failure catalogue as config/",
          "[policy][failures][rule:O7]") {
  const nlohmann::json values = load_yaml("helm/respool/values.yaml");
  const nlohmann::json chart_catalog =
      respool::policy::test::yaml_to_json(YAML::Load(values.at("catalog").get<std::string>()));
  CHECK(chart_catalog.at("failures") == load_yaml("config/catalog.yaml").at("failures"));
  CHECK(parse_catalog(chart_catalog));
}
