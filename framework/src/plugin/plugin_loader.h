// Loading domain plugins (shared objects) with Boost.DLL: the only code that includes it.
//
//   PluginRegistry registry;
//   Status found = registry.Add(config.plugin_paths);  // directories or .so files; failures
//                                                      // are kept in registry.rejected()
//   Result<PluginInstance> created = registry.Create(config.plugin);
//   if (!created.ok()) return created.status();
//   PluginInstance plugin = std::move(created.value());
//   Status s = CallPlugin("Configure", plugin, [&] { return plugin->Configure(settings, ctx); });
//
// A library is opened with RTLD_NOW | RTLD_LOCAL (every undefined symbol is resolved at load
// time, so a plugin built against a different dede_core fails here instead of aborting the
// process at its first call; nothing it defines leaks into the global namespace). Before any
// C++ object crosses the boundary the loader reads the descriptor returned by the one exported
// C symbol, `dede_plugin_descriptor_v1`, and rejects, each with a Status naming the file and both
// values:
//   * a missing file, a file that is not an ELF shared object, a dlopen failure;
//   * a library without the entry point;
//   * abi_version != kPluginAbiVersion ("plugin ABI version 2, host expects 1");
//   * descriptor_size or descriptor_align different from the host's;
//   * a toolchain (compiler major version + standard library ABI) different from the host's;
//   * a null or empty name, a null version, create or destroy;
//   * (registry) a second file that provides an already-registered name.
// Plugin methods run through CallPlugin, which turns anything they throw into a Status.
//
// Lifetime: a PluginHandle owns the library. A PluginInstance (the DomainPlugin object) holds a
// shared_ptr to its handle in its deleter, so the library is unloaded only after the last
// instance was destroyed by the plugin's own `destroy`, whatever the destruction order of the
// registry and the instances.
//
// Not contained (in-process loading cannot contain them): a crash (segfault, abort) inside plugin
// code, and an exception thrown by a static initializer while the library is being loaded.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/guard.h"
#include "dede/plugin.h"
#include "dede/status.h"

namespace dede::internal {

// What the descriptor said, copied out of the library (valid after it is unloaded).
struct PluginInfo {
  std::string name;       // "cluster_scheduling"
  std::string version;    // the plugin's own version, "0.1.0"
  std::string path;       // the file, as it was given to the loader
  std::string toolchain;  // "gcc-12/libstdc++-cxx11"
  std::uint32_t abi_version = 0;
};

// The toolchain id the host was built with (DEDE_PLUGIN_TOOLCHAIN).
const char* HostToolchain();

// One loaded library and its checked descriptor. Not copyable; shared by the instances it
// created (see PluginInstance). Destroying the last owner unloads the library.
class PluginHandle {
 public:
  ~PluginHandle();
  PluginHandle(const PluginHandle&) = delete;
  PluginHandle& operator=(const PluginHandle&) = delete;

  const PluginInfo& info() const { return info_; }
  // Valid while this handle lives.
  const PluginDescriptor& descriptor() const { return *descriptor_; }

 private:
  struct Library;  // the boost::dll::shared_library, kept out of this header
  friend Result<std::shared_ptr<PluginHandle>> LoadPlugin(const std::string& path);

  PluginHandle();

  std::unique_ptr<Library> library_;
  const PluginDescriptor* descriptor_ = nullptr;
  PluginInfo info_;
};

// Opens `path` and checks its descriptor (see the list at the top of this file).
// Codes: kNotFound (no file, no entry point), kInvalidArgument (not a shared object, a null or
// empty field), kFailedPrecondition (dlopen failure, ABI / size / alignment / toolchain
// mismatch), kInternal (the entry point threw).
Result<std::shared_ptr<PluginHandle>> LoadPlugin(const std::string& path);

// Destroys a DomainPlugin with the `destroy` of the library that created it, then releases
// its reference to that library (unique_ptr keeps its deleter after reset(), so the reference
// is dropped here, not when the unique_ptr itself goes away).
struct PluginDeleter {
  std::shared_ptr<const PluginHandle> handle;
  void operator()(DomainPlugin* plugin) noexcept;
};

// A DomainPlugin object. Keeps its library loaded until it is destroyed (reset or goes out of
// scope). Do not reset() it to a raw pointer: instances come from CreatePlugin only.
using PluginInstance = std::unique_ptr<DomainPlugin, PluginDeleter>;

// The handle a (non-null) instance came from.
inline const PluginInfo& InfoOf(const PluginInstance& instance) {
  return instance.get_deleter().handle->info();
}

// Runs a plugin method: a returned Status is passed through; anything thrown becomes
// Internal("plugin 'x' (file) threw in Configure: what()"), so nothing thrown by a plugin
// reaches the host. `f` returns Status or void.
template <class F>
Status CallPlugin(const char* what,
                  const std::string& plugin_name,
                  const std::string& file,
                  F&& f) {
  return GuardCall("plugin '" + plugin_name + "' (" + file + ")", what, std::forward<F>(f));
}
template <class F>
Status CallPlugin(const char* what, const PluginInfo& info, F&& f) {
  return CallPlugin(what, info.name, info.path, std::forward<F>(f));
}
template <class F>
Status CallPlugin(const char* what, const PluginInstance& instance, F&& f) {
  return CallPlugin(what, InfoOf(instance), std::forward<F>(f));
}

// Calls the descriptor's `create` through CallPlugin. kInternal if it throws or returns null.
Result<PluginInstance> CreatePlugin(std::shared_ptr<const PluginHandle> handle);

// Where a host program looks for plugins, in order: `first` (a deployment's plugin.paths),
// $DEDE_PLUGIN_PATH (colon-separated), then next to the running executable: the build tree
// (<build>/plugins beside <build>/tools/<program>/) and an installed layout
// (<prefix>/lib/dede/plugins). Only directories that exist are added after `first`.
std::vector<std::string> PluginSearchPath(const std::vector<std::string>& first);

// The plugins found in directories and files, by name.
class PluginRegistry {
 public:
  // A file that was not registered, and why.
  struct Rejection {
    std::string path;
    Status status;
  };

  // A directory (its *.so files, not recursive, in name order) or one file. See AddFile and
  // AddDirectory.
  Status Add(const std::string& path);
  // Each path in turn (e.g. DeploymentConfig::plugin_paths), continuing past failures; returns
  // the first failure.
  Status Add(const std::vector<std::string>& paths);
  // Loads one library and registers its name. A library already registered (the same file
  // reached through another path) is skipped with Ok. A name already registered from another
  // file is kAlreadyExists naming both files; the name then becomes ambiguous and Create fails
  // for it. Every failure is also recorded in rejected().
  Status AddFile(const std::string& path);
  // Loads every regular file ending in ".so" directly inside `dir`, continuing past failures.
  // Returns the first failure (kNotFound if `dir` is not a directory); all of them are in
  // rejected().
  Status AddDirectory(const std::string& dir);

  // Registered plugins, ordered by name.
  std::vector<PluginInfo> plugins() const;
  // For `dede plugins`: one line per registered plugin (name, version, ABI, toolchain, file),
  // then one line per rejected file with its reason. Ends with a newline unless empty.
  //   good_transport  1.2.3  abi 1  gcc-12/libstdc++-cxx11  build/plugins/good_transport.so
  //   rejected: FAILED_PRECONDITION: plugin file 'x.so': plugin ABI version 2, host expects 1. ...
  std::string Listing() const;
  const std::vector<Rejection>& rejected() const { return rejected_; }
  bool Has(const std::string& name) const { return handles_.count(name) != 0; }
  // nullptr if not registered.
  std::shared_ptr<const PluginHandle> Find(const std::string& name) const;

  // A new instance of plugin `name`. kNotFound (listing the registered names) if there is no
  // such plugin, kAlreadyExists if two files provide it, kInternal if `create` throws.
  Result<PluginInstance> Create(const std::string& name) const;

 private:
  Status Reject(const std::string& path, Status status);

  std::map<std::string, std::shared_ptr<const PluginHandle>> handles_;
  std::map<std::string, std::string> files_;                   // canonical path -> registered name
  std::map<std::string, std::vector<std::string>> conflicts_;  // name -> the other files
  std::vector<Rejection> rejected_;
};

}  // namespace dede::internal
