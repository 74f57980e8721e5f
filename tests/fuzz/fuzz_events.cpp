// Inbox events against the bundled domains: byte 0 picks the plugin (bits 0-1) and the round
// the events apply in (bits 2-4); the rest is up to eight events of three lines each (kind,
// target, JSON payload), as `dede submit` stores them. Each payload goes through the runner's
// JSON reader; each event through the plugin's ApplyEvent, then a Refresh of that round and of
// the next, so an accepted event that breaks a later round is found too. A rejection is fine;
// a crash, a sanitizer report or an error Status from Refresh after accepted events is not
// (the runner would stop the deployment). Seeds: one valid script per domain in
// tests/fuzz/regressions/fuzz_events/ (replayed by the test suite, FuzzReplay.fuzz_events).
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "cluster_plugin.h"
#include "config/deployment.h"
#include "config/json_node.h"
#include "gpu_domain.h"
#include "lb_plugin.h"
#include "plugin/plugin_settings.h"
#include "te_plugin.h"

namespace {

const std::string kData = DEDE_FUZZ_DATA_DIR;

const char* Settings(int plugin) {
  switch (plugin) {
    case 0:
      return "plugin:\n  settings:\n"
             "    topology: te/B4.json\n    paths: te/B4-paths.csv\n    num_paths: 4\n"
             "    traffic_matrices: te/matrices\n    objective: max_total_flow\n";
    case 1:
      return "plugin:\n  settings:\n    fairness: max_min\n    source: trace\n"
             "    cluster_spec: cluster/cluster_spec.csv\n"
             "    throughputs: cluster/throughputs_subset.csv\n"
             "    trace: cluster/job_trace_seed0.csv\n    round_seconds: 360\n    rounds: 20\n"
             "    event_job_slots: 2\n";
    case 2:
      return "plugin:\n  settings:\n    tick_s: 1800\n    event_job_slots: 2\n"
             "    cluster: {racks: 2, machines_per_rack: 4, gpus_per_machine: 8}\n"
             "    workload: {source: synthetic, jobs: 12, arrivals: poisson, jobs_per_day: 50}\n";
    default:
      return "plugin:\n  settings:\n    servers: 8\n    shards: 32\n    memory_limit: 8\n"
             "    rounds: 10\n";
  }
}

std::unique_ptr<dede::DomainPlugin> Make(int plugin) {
  switch (plugin) {
    case 0:
      return std::make_unique<dede::te::TrafficEngineeringPlugin>();
    case 1:
      return std::make_unique<dede::cluster::ClusterSchedulingPlugin>();
    case 2:
      return std::make_unique<dede::gpu::GpuPlacementDomain>();
    default:
      return std::make_unique<dede::lb::LoadBalancingPlugin>();
  }
}

// A finding (or a broken harness): say what, then stop as libFuzzer expects.
[[noreturn]] void Die(const char* what, const dede::Status& status) {
  std::fprintf(stderr, "fuzz_events: %s: %s\n", what, status.message().c_str());
  __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0 || size > 16384) return 0;
  const int plugin = data[0] & 3;
  const int round = (data[0] >> 2) & 7;
  // The fixed settings are parsed once per plugin: the parser's first pass runs in a child
  // process with a 2 s limit, which a loaded machine can exceed (a finding of the harness, not
  // of the plugins).
  static std::array<std::optional<dede::ConfigNode>, 4> parsed;
  if (!parsed[plugin]) {
    auto root = dede::internal::ParseYamlString(Settings(plugin), kData + "/fuzz.yaml");
    if (!root.ok()) Die("the harness's settings", root.status());
    parsed[plugin] = *root->Find("plugin")->Find("settings");
  }
  dede::PluginContext context;
  context.config_file = kData + "/fuzz.yaml";
  context.config_dir = kData;
  context.seed = 1;
  std::unique_ptr<dede::DomainPlugin> p = Make(plugin);
  dede::Problem problem(0, 0);
  // The fixed settings are valid: a failure here means the harness is broken.
  std::vector<dede::internal::DefaultedSetting> defaulted;
  if (dede::Status st =
          dede::internal::ConfigureWithSettings(p.get(), *parsed[plugin], context, &defaulted);
      !st.ok())
    Die("Configure", st);
  if (dede::Status st = p->Describe(&problem); !st.ok()) Die("Describe", st);

  std::istringstream in(std::string(reinterpret_cast<const char*>(data + 1), size - 1));
  std::string kind, target, payload;
  int accepted = 0;
  for (std::int64_t id = 1; id <= 8 && std::getline(in, kind) && std::getline(in, target); ++id) {
    if (!std::getline(in, payload)) payload = "{}";
    const std::string origin = "event " + std::to_string(id);
    auto node = dede::internal::JsonToConfigNode(payload, origin, "payload");
    if (!node.ok()) continue;
    dede::Event event;
    event.id = id;
    event.kind = kind;
    event.target = target;
    event.payload = std::move(node.value());
    event.apply_from_round = round;
    std::string rejection;
    if (dede::Status st = p->ApplyEvent(round, event, &rejection); !st.ok())
      Die("ApplyEvent returned an error (the deployment would stop)", st);
    accepted += rejection.empty();
  }
  bool finished = false;
  for (int r = round; r <= round + 1; ++r) {
    const dede::Status st = p->Refresh(r, &problem, &finished);
    if (!st.ok() && accepted > 0) Die("Refresh after accepted events", st);
    if (finished) break;
  }
  return 0;
}
