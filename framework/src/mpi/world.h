// The processes of one `mpirun -np N dede ...` launch, as the host sees them.
//
// Every process loads the same deployment and plugin and builds the same problem (plugins are
// deterministic: a round's data comes from its number and the configuration); the ADMM
// engine then splits its blocks over the processes (mpi_block_executor.h). Rank 0 alone
// prints results and talks to the database: what the others need from it (the resumed round,
// the warm start, the plugin's checkpoint, the inbox's events) it broadcasts.
//
// Without MPI in the build, or in a process that mpirun did not start, this is a world of one
// process and no MPI function is ever called.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "admm/block_executor.h"

namespace dede::internal::mpi {

// Whether this build has Open MPI.
bool Built();

// Initialises MPI when the process was started by mpirun (and the build has MPI), for as long
// as it lives; finalises it at the end.
class World {
 public:
  World(int* argc, char*** argv);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;
};

// Whether mpirun started this process (and the build has MPI), whatever the number of processes.
bool Launched();
int Rank();
int Size();
inline bool IsRoot() { return Rank() == 0; }
// Worker threads per process when the deployment leaves it to the machine (num_threads 0):
// the hardware threads shared by the processes of this host.
int ThreadsPerProcess();

// Rank 0's value on every process (collective: every process calls it at the same point).
// A process waits at most `within` seconds (default: ExchangeTimeoutSeconds) for rank 0, and
// then decides rank 0 hangs: it says so and exits with code 3, and mpirun ends the launch.
// The wait sleeps between polls: a process waiting for the next round leaves its cores to
// the others.
void Broadcast(std::string* value);
void Broadcast(std::vector<double>* value);
void Broadcast(std::int64_t* value, double within = 0);
// Ends every process of the launch with `code` (a fault no process can recover from alone).
[[noreturn]] void Abort(int code);
// The exit code of the launch, called by every process as it ends: the largest of the
// processes' codes, so that every process ends normally with it (MPI_Abort would kill the
// others mid-output). A process with a non-zero code waits at most kExitAgreementSeconds for
// the others (a failure of its own may leave them waiting for it) and then ends the launch
// with Abort; one with code 0 waits as long as an exchange may (ExchangeTimeoutSeconds).
inline constexpr double kExitAgreementSeconds = 10;
int AgreeExitCode(int code);
// Says that this process waited over `seconds` for `what` and so takes a process of the
// launch to hang, and exits at once with code 3 (mpirun then ends the others).
[[noreturn]] void ExitHung(const char* what, double seconds);

// How long an exchange of the engine may wait for the other processes before this one
// decides that one of them hangs and ends the launch: DEDE_MPI_TIMEOUT_SECONDS, default 300.
// (A process that dies ends the launch at once: mpirun stops the others.)
double ExchangeTimeoutSeconds();

// The engine's executor over every process of the launch: each owns a contiguous range of
// each side's blocks, balanced by their work, and runs them on its own threads. Collective:
// every process makes its executors in the same order. Null in a world of one.
std::unique_ptr<BlockExecutor> MakeBlockExecutor();

}  // namespace dede::internal::mpi
