// gpu_placement inbox events: jobs submitted while the deployment runs fill the demand slots
// reserved by `event_job_slots`. See README.md in this directory.
#include <string>

#include "dede/csv.h"
#include "gpu_domain.h"

namespace dede::gpu {

std::vector<EventKind> GpuPlacementDomain::EventKinds() const {
  return {{"job_arrive",
           "a new job id (an integer not in use)",
           "{gpus: integer >= 1, model: name (optional), iterations and time_per_iteration_s > 0, "
           "or duration_s > 0}",
           "the job arrives at the start of the round's tick; it fills one of event_job_slots"}};
}

Status GpuPlacementDomain::ApplyEvent(int round, const Event& event, std::string* rejection) {
  rejection->clear();
  const std::string where = "event " + std::to_string(event.id) + " (" + event.kind + ")";
  const auto reject = [&](const std::string& why) {
    *rejection = where + ": " + why;
    return Status::Ok();
  };
  if (event.kind != "job_arrive") return reject("unknown kind");
  if (jobs_.size() >= active_.size())
    return reject(
        settings_.event_job_slots == 0
            ? "the deployment reserved no slots for submitted jobs "
              "(plugin.settings.event_job_slots)"
            : "all " + std::to_string(settings_.event_job_slots) +
                  " slots for submitted jobs are taken (plugin.settings.event_job_slots)");
  JobSpec job;
  if (!ParseInteger(event.target, &job.id) || job.id < 0)
    return reject("target '" + event.target + "' is not a job id (an integer >= 0)");
  for (const JobSpec& other : jobs_)
    if (other.id == job.id) return reject("job id " + event.target + " is already in use");
  const ConfigNode& p = event.payload;
  Status st = p.CheckKeys({"gpus", "model", "iterations", "time_per_iteration_s", "duration_s"});
  st.Update(p.Require("gpus"));
  st.Update(p.Read("gpus", &job.gpus, 1, 1 << 20));
  st.Update(p.Read("model", &job.model));
  const bool by_duration = p.Has("duration_s");
  if (by_duration && (p.Has("iterations") || p.Has("time_per_iteration_s")))
    return reject("give either duration_s or iterations and time_per_iteration_s, not both");
  if (by_duration) {
    double duration = 0;
    st.Update(p.Read("duration_s", &duration, 1e-6, 1e15));
    // One iteration whose ideal runtime on the job's GPUs is the duration, as a Tiresias trace.
    job.iterations = 1;
    job.time_per_iteration_s =
        duration * (settings_.sim.work_model == WorkModel::kArtistLinear ? job.gpus : 1);
  } else {
    st.Update(p.Require("iterations"));
    st.Update(p.Require("time_per_iteration_s"));
    st.Update(p.Read("iterations", &job.iterations, 1e-9, 1e15));
    st.Update(p.Read("time_per_iteration_s", &job.time_per_iteration_s, 1e-9, 1e9));
  }
  if (!st.ok()) {
    *rejection = st.message();
    return Status::Ok();
  }
  job.arrival_s = origin_s_ + round * settings_.tick_s;  // the start of the round's tick
  st = CompleteJob(settings_, where, /*keep_trace_overheads=*/false, &job);
  if (!st.ok()) {
    *rejection = st.message();
    return Status::Ok();
  }
  jobs_.push_back(job);
  submitted_round_.push_back(round);
  return Status::Ok();
}

void GpuPlacementDomain::WriteSubmittedSlots(Problem* problem) {
  const int K = static_cast<int>(settings_.types.size());
  double total = 0;
  for (const GpuType& t : settings_.types) total += t.shape.TotalGpus();
  for (size_t j = written_slots_; j < jobs_.size(); ++j) {
    const JobSpec& job = jobs_[j];
    t_equal_[j] = 0;
    for (int k = 0; k < K; ++k)
      t_equal_[j] += settings_.types[k].shape.TotalGpus() / total *
                     (job.pool_speed.empty() ? 1.0 : job.pool_speed[k]);
    problem->SetRhs(column_[j], job.gpus);
    for (int k = 0; k < K; ++k)
      problem->SetGlobalCoefficient(static_cast<int>(j),
                                    Var(k, static_cast<int>(j)),
                                    ValueCoefficient(static_cast<int>(j), k));
  }
  written_slots_ = jobs_.size();
}

}  // namespace dede::gpu
