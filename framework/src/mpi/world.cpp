#include "mpi/world.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#if DEDE_WITH_MPI
#include <mpi.h>
#endif

#include "core/logging.h"

namespace dede::internal::mpi {
namespace {

int g_rank = 0;
int g_size = 1;
int g_local_size = 1;
bool g_initialised = false;
#if DEDE_WITH_MPI
// The exit code's agreement alone (AgreeExitCode): a process that reaches it early cannot
// match its collective with another process's exchange on MPI_COMM_WORLD.
MPI_Comm g_exit_comm = MPI_COMM_NULL;
#endif

// Open MPI's launcher (mpirun, and the PMIx servers it speaks to) sets these.
bool LaunchedByMpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr;
}

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr) return fallback;
  const int n = std::atoi(v);
  return n > 0 ? n : fallback;
}

}  // namespace

#if DEDE_WITH_MPI

bool Built() { return true; }

World::World(int* argc, char*** argv) {
  if (!LaunchedByMpirun()) return;
  int provided = 0;
  // The engine calls MPI from the thread that runs a solve (in `dede run`, not the main
  // thread), one call at a time.
  MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
  if (provided < MPI_THREAD_SERIALIZED) {
    LogError("this MPI library gives thread level {}; dede needs MPI_THREAD_SERIALIZED ({})",
             provided,
             static_cast<int>(MPI_THREAD_SERIALIZED));
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  g_initialised = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  MPI_Comm_dup(MPI_COMM_WORLD, &g_exit_comm);
  g_local_size = EnvInt("OMPI_COMM_WORLD_LOCAL_SIZE", 1);
}

World::~World() {
  if (g_initialised) {
    MPI_Comm_free(&g_exit_comm);
    MPI_Finalize();
  }
  g_initialised = false;
}

namespace {

// Polls `request` until it completes (true) or `within` seconds pass (false), sleeping between
// polls (up to 2 ms: the latency it adds), where a blocking call spins on the core.
bool Await(MPI_Request* request, double within) {
  const auto start = std::chrono::steady_clock::now();
  auto nap = std::chrono::microseconds(20);
  for (;;) {
    int done = 0;
    MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (done != 0) return true;
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > within) return false;
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::microseconds(2000));
  }
}

// Rank 0's `count` values of `type` at `data`, waiting at most `within` seconds (see Broadcast):
// a non-blocking broadcast, polled, so that a process waiting for rank 0 between rounds
// leaves its core.
void TimedBroadcast(void* data, int count, MPI_Datatype type, double within) {
  if (!(within > 0)) within = ExchangeTimeoutSeconds();
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibcast(data, count, type, 0, MPI_COMM_WORLD, &request);
  if (!Await(&request, within)) ExitHung("rank 0 (its next round, its database reads)", within);
}

}  // namespace

int AgreeExitCode(int code) {
  if (g_size <= 1) return code;
  int agreed = code;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallreduce(&code, &agreed, 1, MPI_INT, MPI_MAX, g_exit_comm, &request);
  // A process that failed waits briefly for the others (they fail alike, at the same point,
  // unless the failure was its own: then they may be waiting for it, and the launch ends).
  const double full = ExchangeTimeoutSeconds();
  const double within = code != 0 ? std::min(kExitAgreementSeconds, full) : full;
  if (Await(&request, within)) return agreed;
  if (code != 0) Abort(code);
  ExitHung("the other processes to finish", within);
}

// Rank 0's size, then its elements in chunks of at most 1 GiB (MPI counts are ints).
template <typename Container>
void BroadcastSized(Container* value, MPI_Datatype type) {
  if (g_size <= 1) return;
  std::int64_t n = static_cast<std::int64_t>(value->size());
  Broadcast(&n);
  value->resize(static_cast<std::size_t>(n));
  const std::int64_t per_chunk = (std::int64_t{1} << 30) / sizeof(*value->data());
  for (std::int64_t at = 0; at < n;) {
    const int chunk = static_cast<int>(std::min(n - at, per_chunk));
    TimedBroadcast(value->data() + at, chunk, type, 0);
    at += chunk;
  }
}

void Broadcast(std::string* value) { BroadcastSized(value, MPI_CHAR); }
void Broadcast(std::vector<double>* value) { BroadcastSized(value, MPI_DOUBLE); }

void Broadcast(std::int64_t* value, double within) {
  if (g_size <= 1) return;
  TimedBroadcast(value, 1, MPI_INT64_T, within);
}

void Abort(int code) {
  if (g_initialised) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

#else

bool Built() { return false; }
World::World(int*, char***) {
  if (LaunchedByMpirun() && EnvInt("OMPI_COMM_WORLD_RANK", 0) == 0) {
    LogWarn("started by mpirun, but this build has no MPI (each process runs alone)");
  }
}
World::~World() = default;
void Broadcast(std::string*) {}
void Broadcast(std::vector<double>*) {}
void Broadcast(std::int64_t*, double) {}
void Abort(int code) { std::exit(code); }
int AgreeExitCode(int code) { return code; }

#endif

void ExitHung(const char* what, double seconds) {
  // The log flushes each line it writes: nothing is lost to _Exit.
  LogError(
      "process {} of {} waited over {:g} s for {} (DEDE_MPI_TIMEOUT_SECONDS): a process of the "
      "launch hangs; ending the launch (the round in flight is not written)",
      g_rank,
      g_size,
      seconds,
      what);
  std::_Exit(3);
}

bool Launched() { return g_initialised; }

double ExchangeTimeoutSeconds() {
  const char* v = std::getenv("DEDE_MPI_TIMEOUT_SECONDS");
  if (v == nullptr) return 300;
  char* end = nullptr;
  const double seconds = std::strtod(v, &end);
  if (end == v || *end != '\0' || !(seconds > 0)) {
    LogError("environment variable DEDE_MPI_TIMEOUT_SECONDS = '{}': expected seconds > 0", v);
    Abort(2);
  }
  return seconds;
}
int Rank() { return g_rank; }
int Size() { return g_size; }

int ThreadsPerProcess() {
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int threads = std::max(1, hardware / std::max(1, g_local_size));
  // mpirun binds each process to cores of its own (by default, up to two processes): no more
  // threads than those.
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) threads = std::min(threads, CPU_COUNT(&set));
  return std::max(1, threads);
}

}  // namespace dede::internal::mpi
