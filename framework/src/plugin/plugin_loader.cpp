#include "plugin/plugin_loader.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <algorithm>
#include <array>
#include <boost/dll/shared_library.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "core/check.h"
#include "core/logging.h"

namespace dede::internal {
namespace {

namespace fs = std::filesystem;

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

// "plugin file 'x.so': " prefixes every load error, so the message names the file first.
std::string In(const std::string& path) { return "plugin file " + Quoted(path) + ": "; }

// ELF files start with 0x7f 'E' 'L' 'F'. Checked before dlopen so that a stray text file in a
// plugin directory gets a plain explanation instead of dlopen's "invalid ELF header"; then the
// header and every segment and section table it names must lie inside the file and match this
// process (a truncated copy of a plugin is mapped by dlopen and faults with SIGBUS on the
// first read past its end, killing the host).
Status CheckElfFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return FailedPrecondition(In(path) + "cannot be opened for reading");
  Elf64_Ehdr header{};
  in.read(reinterpret_cast<char*>(&header), sizeof(header));
  const auto got = static_cast<std::size_t>(in.gcount());
  const unsigned char* bytes = header.e_ident;
  static constexpr std::array<unsigned char, 4> kMagic = {0x7f, 'E', 'L', 'F'};
  if (got < kMagic.size() || std::memcmp(bytes, kMagic.data(), kMagic.size()) != 0) {
    std::string found;
    for (std::size_t i = 0; i < std::min<std::size_t>(got, 4); ++i) {
      if (i > 0) found += ' ';
      found += fmt::format("{:02x}", bytes[i]);
    }
    if (found.empty()) found = "an empty file";
    return InvalidArgument(
        In(path) + "not a shared object: expected the ELF magic 7f 45 4c 46, found " + found);
  }
  if (got < sizeof(header)) {
    return InvalidArgument(In(path) + "truncated: " + std::to_string(got) +
                           " bytes, shorter than an ELF header");
  }
  if (bytes[EI_CLASS] != ELFCLASS64 || bytes[EI_DATA] != ELFDATA2LSB) {
    return InvalidArgument(In(path) + "not a 64-bit little-endian ELF file (class " +
                           std::to_string(bytes[EI_CLASS]) + ", data " +
                           std::to_string(bytes[EI_DATA]) + ")");
  }
  if (header.e_type != ET_DYN) {
    return InvalidArgument(In(path) + "not a shared object (ELF type " +
                           std::to_string(header.e_type) + ")");
  }
#if defined(__x86_64__)
  constexpr int kMachine = EM_X86_64;
#elif defined(__aarch64__)
  constexpr int kMachine = EM_AARCH64;
#else
  constexpr int kMachine = -1;
#endif
  if (kMachine >= 0 && header.e_machine != kMachine) {
    return InvalidArgument(In(path) + "built for another machine (ELF machine " +
                           std::to_string(header.e_machine) + ", this host " +
                           std::to_string(kMachine) + ")");
  }
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) return FailedPrecondition(In(path) + "cannot read its size: " + ec.message());
  const auto past_end = [&](std::uint64_t offset, std::uint64_t length) {
    return offset > size || length > size - offset;
  };
  const auto truncated = [&](const std::string& what, std::uint64_t end) {
    return InvalidArgument(In(path) + "truncated: " + what + " ends at byte " +
                           std::to_string(end) + " of a " + std::to_string(size) + "-byte file");
  };
  if (header.e_phentsize != sizeof(Elf64_Phdr) ||
      past_end(header.e_phoff, std::uint64_t{header.e_phnum} * sizeof(Elf64_Phdr))) {
    return truncated("the program header table",
                     header.e_phoff + std::uint64_t{header.e_phnum} * header.e_phentsize);
  }
  if (header.e_shnum > 0 &&
      past_end(header.e_shoff, std::uint64_t{header.e_shnum} * header.e_shentsize)) {
    return truncated("the section header table",
                     header.e_shoff + std::uint64_t{header.e_shnum} * header.e_shentsize);
  }
  in.seekg(static_cast<std::streamoff>(header.e_phoff));
  for (int i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment{};
    in.read(reinterpret_cast<char*>(&segment), sizeof(segment));
    if (static_cast<std::size_t>(in.gcount()) != sizeof(segment)) {
      return truncated("the program header table", header.e_phoff + (i + 1) * sizeof(segment));
    }
    if (segment.p_type == PT_LOAD && past_end(segment.p_offset, segment.p_filesz)) {
      return truncated("loadable segment " + std::to_string(i),
                       segment.p_offset + segment.p_filesz);
    }
  }
  return Status::Ok();
}

// Plugin names appear in YAML and in the database: printable, no blanks.
bool IsValidName(const char* name) {
  for (const char* c = name; *c != '\0'; ++c) {
    const auto u = static_cast<unsigned char>(*c);
    if (u <= 0x20 || u == 0x7f) return false;
  }
  return true;
}

// Every field is checked in declaration order, so a field is read only after the fields that
// say whether the plugin's struct has the host's layout (version, size, alignment) matched.
Status CheckDescriptor(const std::string& path, const PluginDescriptor* d) {
  if (d == nullptr) {
    return InvalidArgument(In(path) + std::string(kPluginEntryPoint) +
                           "() returned null, expected a descriptor");
  }
  if (d->abi_version != kPluginAbiVersion) {
    return FailedPrecondition(In(path) + "plugin ABI version " + std::to_string(d->abi_version) +
                              ", host expects " + std::to_string(kPluginAbiVersion) +
                              ". Rebuild the plugin against this dede SDK.");
  }
  if (d->descriptor_size != sizeof(PluginDescriptor)) {
    return FailedPrecondition(In(path) + "plugin descriptor size " +
                              std::to_string(d->descriptor_size) + " bytes, host expects " +
                              std::to_string(sizeof(PluginDescriptor)) +
                              ". The plugin was built with a different dede/plugin.h.");
  }
  if (d->descriptor_align != alignof(PluginDescriptor)) {
    return FailedPrecondition(In(path) + "plugin descriptor alignment " +
                              std::to_string(d->descriptor_align) + ", host expects " +
                              std::to_string(alignof(PluginDescriptor)) +
                              ". The plugin was built for a different ABI.");
  }
  if (d->toolchain == nullptr) {
    return InvalidArgument(In(path) + "plugin toolchain is null, host expects '" +
                           std::string(HostToolchain()) + "'");
  }
  if (std::strcmp(d->toolchain, HostToolchain()) != 0) {
    return FailedPrecondition(In(path) + "plugin toolchain '" + d->toolchain +
                              "', host toolchain '" + HostToolchain() +
                              "'. C++ objects cross the plugin boundary: rebuild the plugin "
                              "with the host's compiler and standard library.");
  }
  if (d->name == nullptr) {
    return InvalidArgument(In(path) + "plugin name is null, expected a non-empty string");
  }
  if (d->name[0] == '\0') {
    return InvalidArgument(In(path) + "plugin name is empty, expected a non-empty string");
  }
  if (!IsValidName(d->name)) {
    return InvalidArgument(In(path) + "plugin name " + Quoted(d->name) +
                           " contains blanks or control characters");
  }
  if (d->plugin_version == nullptr) {
    return InvalidArgument(In(path) + "plugin '" + d->name +
                           "': plugin_version is null, expected a version string");
  }
  if (d->create == nullptr) {
    return InvalidArgument(In(path) + "plugin '" + d->name +
                           "': create is null, expected a factory function");
  }
  if (d->destroy == nullptr) {
    return InvalidArgument(In(path) + "plugin '" + d->name +
                           "': destroy is null, expected a deleter function");
  }
  return Status::Ok();
}

}  // namespace

std::vector<std::string> PluginSearchPath(const std::vector<std::string>& first) {
  std::vector<std::string> paths = first;
  if (const char* env = std::getenv("DEDE_PLUGIN_PATH")) {
    std::stringstream in(env);
    std::string item;
    while (std::getline(in, item, ':'))
      if (!item.empty()) paths.push_back(item);
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const fs::path exe_dir = ec ? fs::current_path() : exe.parent_path();
  for (const fs::path& candidate :
       {exe_dir / ".." / ".." / "plugins", exe_dir / ".." / "lib" / "dede" / "plugins"}) {
    if (fs::is_directory(candidate, ec)) paths.push_back(fs::weakly_canonical(candidate).string());
  }
  return paths;
}

const char* HostToolchain() { return DEDE_PLUGIN_TOOLCHAIN; }

struct PluginHandle::Library {
  boost::dll::shared_library library;
};

PluginHandle::PluginHandle() : library_(std::make_unique<Library>()) {}

// Members are destroyed after the body: descriptor_ dangles from here on but is not used; the
// shared_library's destructor unloads the file.
PluginHandle::~PluginHandle() = default;

Result<std::shared_ptr<PluginHandle>> LoadPlugin(const std::string& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) {
    return NotFound(In(path) + "does not exist" +
                    (ec && ec != std::errc::no_such_file_or_directory ? " (" + ec.message() + ")"
                                                                      : std::string()));
  }
  if (!fs::is_regular_file(status)) {
    return InvalidArgument(In(path) + "not a regular file" +
                           (fs::is_directory(status) ? " (a directory)" : ""));
  }
  Status elf = CheckElfFile(path);
  if (!elf.ok()) return elf;

  // Boost.DLL throws only on allocation failure here (error_code overloads are used), and the
  // entry point is plugin code: neither may escape into the host.
  auto handle = std::shared_ptr<PluginHandle>(new PluginHandle());
  try {
    const fs::path absolute = fs::absolute(path, ec);
    boost::dll::fs::error_code load_error;
    // rtld_now: an unresolved symbol (a plugin built against another dede_core) is an error here,
    // not an abort at the first call. rtld_local: plugins cannot see or interpose each other.
    handle->library_->library.load(
        ec ? fs::path(path) : absolute,
        boost::dll::load_mode::rtld_local | boost::dll::load_mode::rtld_now,
        load_error);
    if (load_error || !handle->library_->library.is_loaded()) {
      // Boost reports a generic error code; dlerror() still holds the loader's explanation
      // ("undefined symbol: ...", "wrong ELF class", ...).
      const char* reason = ::dlerror();
      return FailedPrecondition(In(path) + "cannot be loaded: " +
                                (reason != nullptr ? std::string(reason) : load_error.message()));
    }
    if (!handle->library_->library.has(kPluginEntryPoint)) {
      return NotFound(In(path) + "symbol '" + std::string(kPluginEntryPoint) +
                      "' not found, expected the plugin entry point. Is "
                      "DEDE_DECLARE_PLUGIN(Class, \"name\", \"version\") missing?");
    }
    // A data object of that name would be called as code: check the symbol's type first.
    void* address = ::dlsym(handle->library_->library.native(), kPluginEntryPoint);
    Dl_info where{};
    void* symbol_entry = nullptr;
    const ElfW(Sym)* symbol = nullptr;
    if (address != nullptr && ::dladdr1(address, &where, &symbol_entry, RTLD_DL_SYMENT) != 0 &&
        (symbol = static_cast<const ElfW(Sym)*>(symbol_entry)) != nullptr && symbol != nullptr &&
        ELF64_ST_TYPE(symbol->st_info) != STT_FUNC) {
      return InvalidArgument(In(path) + "symbol '" + std::string(kPluginEntryPoint) +
                             "' is not a function (ELF symbol type " +
                             std::to_string(ELF64_ST_TYPE(symbol->st_info)) +
                             "); DEDE_DECLARE_PLUGIN defines it");
    }
    using EntryPoint = const PluginDescriptor*();
    EntryPoint& entry = handle->library_->library.get<EntryPoint>(kPluginEntryPoint);
    const PluginDescriptor* descriptor = nullptr;
    Status called = CallPlugin(
        kPluginEntryPoint, fs::path(path).filename().string(), path, [&] { descriptor = entry(); });
    if (!called.ok()) return called;
    Status checked = CheckDescriptor(path, descriptor);
    if (!checked.ok()) return checked;
    handle->descriptor_ = descriptor;
    handle->info_.name = descriptor->name;
    handle->info_.version = descriptor->plugin_version;
    handle->info_.path = path;
    handle->info_.toolchain = descriptor->toolchain;
    handle->info_.abi_version = descriptor->abi_version;
  } catch (const std::exception& e) {
    return Internal(In(path) + "loading failed: " + e.what());
  }
  return handle;
}

void PluginDeleter::operator()(DomainPlugin* plugin) noexcept {
  if (plugin == nullptr) return;
  // A PluginInstance is only made by CreatePlugin, which always sets the handle.
  DEDE_CHECK_MSG(handle != nullptr, "PluginInstance without its library handle");
  // A destructor that throws terminates inside the plugin (destructors are noexcept); this
  // catches what `destroy` itself might throw.
  Status destroyed =
      CallPlugin("destroy", handle->info(), [&] { handle->descriptor().destroy(plugin); });
  // The instance is gone either way; the run goes on.
  if (!destroyed.ok()) LogWarn("{}", destroyed.ToString());
  handle.reset();  // the object is gone: the library may be unloaded now
}

Result<PluginInstance> CreatePlugin(std::shared_ptr<const PluginHandle> handle) {
  if (handle == nullptr) return InvalidArgument("CreatePlugin: no plugin handle");
  DomainPlugin* raw = nullptr;
  Status created =
      CallPlugin("create", handle->info(), [&] { raw = handle->descriptor().create(); });
  if (!created.ok()) return created;
  if (raw == nullptr) {
    return Internal("plugin '" + handle->info().name + "' (" + handle->info().path +
                    "): create returned null, expected a new DomainPlugin");
  }
  return PluginInstance(raw, PluginDeleter{std::move(handle)});
}

Status PluginRegistry::Reject(const std::string& path, Status status) {
  rejected_.push_back({path, status});
  return status;
}

Status PluginRegistry::Add(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return AddDirectory(path);
  return AddFile(path);
}

Status PluginRegistry::Add(const std::vector<std::string>& paths) {
  Status status;
  for (const std::string& path : paths) status.Update(Add(path));
  return status;
}

Status PluginRegistry::AddFile(const std::string& path) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(path, ec);
  const std::string key = ec ? path : canonical.string();
  if (files_.count(key) != 0) return Status::Ok();  // the same file, reached again

  Result<std::shared_ptr<PluginHandle>> loaded = LoadPlugin(path);
  if (!loaded.ok()) return Reject(path, loaded.status());
  std::shared_ptr<PluginHandle> handle = std::move(loaded.value());
  const PluginInfo& info = handle->info();
  auto existing = handles_.find(info.name);
  if (existing != handles_.end()) {
    const PluginInfo& first = existing->second->info();
    conflicts_[info.name].push_back(path);
    // `handle` goes out of scope: the duplicate is unloaded again.
    return Reject(
        path,
        AlreadyExists("duplicate plugin name '" + info.name + "': provided by " +
                      Quoted(first.path) + " (version " + first.version + ") and by " +
                      Quoted(path) + " (version " + info.version + "). Remove one of them."));
  }
  files_.emplace(key, info.name);
  handles_.emplace(info.name, std::move(handle));
  return Status::Ok();
}

Status PluginRegistry::AddDirectory(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Reject(dir,
                  NotFound("plugin directory " + Quoted(dir) +
                           (fs::exists(dir, ec) ? " is not a directory" : " does not exist")));
  }
  std::vector<std::string> files;
  fs::directory_iterator it(dir, ec), end;
  if (ec) {
    return Reject(
        dir,
        FailedPrecondition("plugin directory " + Quoted(dir) + " cannot be read: " + ec.message()));
  }
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    const fs::path& p = it->path();
    std::error_code type_ec;
    if (p.extension() == ".so" && fs::is_regular_file(p, type_ec)) files.push_back(p.string());
  }
  if (ec) {
    return Reject(
        dir,
        FailedPrecondition("plugin directory " + Quoted(dir) + " cannot be read: " + ec.message()));
  }
  // Name order, so that which of two duplicates wins does not depend on the file system.
  std::sort(files.begin(), files.end());
  Status status;
  for (const std::string& file : files) status.Update(AddFile(file));
  return status;
}

std::vector<PluginInfo> PluginRegistry::plugins() const {
  std::vector<PluginInfo> out;
  out.reserve(handles_.size());
  for (const auto& [name, handle] : handles_) out.push_back(handle->info());
  return out;
}

std::string PluginRegistry::Listing() const {
  // Columns padded to the widest entry, so the listing reads as a table.
  std::size_t name_width = 0, version_width = 0, toolchain_width = 0;
  for (const auto& [name, handle] : handles_) {
    name_width = std::max(name_width, name.size());
    version_width = std::max(version_width, handle->info().version.size());
    toolchain_width = std::max(toolchain_width, handle->info().toolchain.size());
  }
  auto pad = [](const std::string& s, std::size_t width) {
    return s + std::string(width - s.size(), ' ');
  };
  std::string out;
  for (const auto& [name, handle] : handles_) {
    const PluginInfo& info = handle->info();
    out += pad(name, name_width) + "  " + pad(info.version, version_width) + "  abi " +
           std::to_string(info.abi_version) + "  " + pad(info.toolchain, toolchain_width) + "  " +
           info.path;
    if (conflicts_.count(name) != 0) out += "  (ambiguous: see rejected)";
    out += "\n";
  }
  for (const Rejection& r : rejected_) out += "rejected: " + r.status.ToString() + "\n";
  return out;
}

std::shared_ptr<const PluginHandle> PluginRegistry::Find(const std::string& name) const {
  auto it = handles_.find(name);
  return it == handles_.end() ? nullptr : it->second;
}

Result<PluginInstance> PluginRegistry::Create(const std::string& name) const {
  auto it = handles_.find(name);
  if (it == handles_.end()) {
    std::string known;
    for (const auto& [known_name, handle] : handles_) {
      known += (known.empty() ? "" : ", ") + known_name;
    }
    std::string message = "no plugin named '" + name +
                          "'; registered: " + (known.empty() ? std::string("none") : known);
    if (!rejected_.empty()) {
      message += "; rejected files: ";
      for (std::size_t i = 0; i < rejected_.size(); ++i) {
        message += (i > 0 ? ", " : "") + Quoted(rejected_[i].path);
      }
    }
    return NotFound(message);
  }
  auto conflict = conflicts_.find(name);
  if (conflict != conflicts_.end()) {
    std::string files = Quoted(it->second->info().path);
    for (const std::string& other : conflict->second) files += " and " + Quoted(other);
    return AlreadyExists("plugin name '" + name + "' is ambiguous: provided by " + files +
                         ". Remove all but one.");
  }
  return CreatePlugin(it->second);
}

}  // namespace dede::internal
