/// \file
/// The layout of every type that crosses the plugin boundary, checked by the compiler: a plugin
/// and the host exchange these objects by value or through references and inline code, so a
/// change of size, alignment or fields (a field added, even into padding, or removed) breaks
/// every plugin built before it. Each type's layout is recorded here for the ABI version in
/// kAbiLayoutVersion; a change without a new kPluginAbiVersion (dede/plugin.h) stops the build
/// at the type that changed. To change a boundary type: bump kPluginAbiVersion, record the new
/// numbers below and kAbiLayoutVersion, and add the version to docs/abi.md.
///
/// What is not seen: a field whose type changes to another of the same size, fields reordered
/// within the same size, and the order of DomainPlugin's virtual functions (append them only,
/// each under "Since ABI N"). Those need the bump by hand.
///
/// The numbers are those of x86-64 Linux with libstdc++'s C++11 ABI (the toolchain the loader
/// requires plugins to share with the host, dede/plugin.h); elsewhere the block is skipped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "dede/csv.h"
#include "dede/log.h"
#include "dede/plugin.h"
#include "dede/stopwatch.h"

namespace dede::abi_layout {

/// The ABI version whose layouts are recorded below.
inline constexpr std::uint32_t kAbiLayoutVersion = 11;

/// Converts to any type, in unevaluated contexts only: T{AnyField{}, ...} with n of them is
/// valid for an aggregate of at least n fields.
struct AnyField {
  template <typename T>
  operator T() const;  ///< NOLINT(google-explicit-constructor): the point is to convert
};

template <typename T, std::size_t... I>
constexpr bool InitializableFrom(std::index_sequence<I...>) {
  return requires { T{((void)I, AnyField{})...}; };
}

/// The number of fields of an aggregate (up to 100).
template <typename T, std::size_t N = 0>
constexpr std::size_t FieldCount() {
  static_assert(std::is_aggregate_v<T>, "FieldCount: an aggregate only");
  if constexpr (N < 100 && InitializableFrom<T>(std::make_index_sequence<N + 1>{})) {
    return FieldCount<T, N + 1>();
  } else {
    return N;
  }
}

}  // namespace dede::abi_layout

#if defined(__x86_64__) && defined(__GLIBCXX__) && defined(_GLIBCXX_USE_CXX11_ABI) && \
    _GLIBCXX_USE_CXX11_ABI && !defined(_GLIBCXX_DEBUG)

static_assert(::dede::abi_layout::kAbiLayoutVersion == ::dede::kPluginAbiVersion,
              "dede/abi_layout.h records the layouts of another ABI version than "
              "kPluginAbiVersion: check every number below against the new version's types and "
              "set kAbiLayoutVersion to it");

/// A class (private fields): its size and alignment.
#define DEDE_ABI_CLASS(Type, size, align)                                                  \
  static_assert(sizeof(::dede::Type) == (size),                                            \
                "dede ABI: sizeof(dede::" #Type ") is no longer " #size                    \
                ": bump kPluginAbiVersion (dede/plugin.h), then record the new layout in " \
                "dede/abi_layout.h and docs/abi.md");                                      \
  static_assert(alignof(::dede::Type) == (align),                                          \
                "dede ABI: alignof(dede::" #Type ") is no longer " #align                  \
                ": bump kPluginAbiVersion (dede/plugin.h), then record the new layout in " \
                "dede/abi_layout.h and docs/abi.md")
/// An aggregate: its size, alignment and number of fields.
#define DEDE_ABI_STRUCT(Type, size, align, fields)                                             \
  DEDE_ABI_CLASS(Type, size, align);                                                           \
  static_assert(::dede::abi_layout::FieldCount<::dede::Type>() == (fields),                    \
                "dede ABI: dede::" #Type " no longer has " #fields                             \
                " fields: bump kPluginAbiVersion (dede/plugin.h), then record the new layout " \
                "in dede/abi_layout.h and docs/abi.md")

// ---- The recorded layouts of ABI 11 -------------------------------------------------------
/// dede/plugin.h
DEDE_ABI_STRUCT(PluginDescriptor, 56, 8, 8);
DEDE_ABI_STRUCT(PluginContext, 72, 8, 3);
DEDE_ABI_STRUCT(Metric, 40, 8, 2);
DEDE_ABI_STRUCT(EntityRecord, 64, 8, 4);
DEDE_ABI_STRUCT(DomainRecord, 112, 8, 4);
DEDE_ABI_STRUCT(RoundReport, 72, 8, 3);
DEDE_ABI_STRUCT(MethodInfo, 64, 8, 2);
DEDE_ABI_STRUCT(SolverServices, 312, 8, 5);
DEDE_ABI_STRUCT(Event, 280, 8, 7);
DEDE_ABI_STRUCT(ExportInfo, 64, 8, 2);
DEDE_ABI_STRUCT(EventKind, 128, 8, 4);
/// dede/solver.h
DEDE_ABI_STRUCT(AdmmOptions, 184, 8, 32);
DEDE_ABI_STRUCT(IterationSummary, 80, 8, 10);
DEDE_ABI_STRUCT(SolveSummary, 336, 8, 34);
DEDE_ABI_STRUCT(Allocation, 24, 8, 1);
DEDE_ABI_STRUCT(ExactOptions, 56, 8, 9);
/// dede/problem.h
DEDE_ABI_CLASS(Problem, 488, 8);
DEDE_ABI_STRUCT(Problem::Violation, 32, 8, 5);
DEDE_ABI_STRUCT(Problem::Changes, 80, 8, 4);
DEDE_ABI_STRUCT(Domain, 24, 8, 3);
DEDE_ABI_STRUCT(BlockId, 8, 4, 2);
DEDE_ABI_STRUCT(Term, 16, 8, 2);
DEDE_ABI_STRUCT(LinearExpr, 32, 8, 2);
DEDE_ABI_STRUCT(EntryImage, 24, 8, 3);
DEDE_ABI_STRUCT(Variable, 64, 8, 7);
DEDE_ABI_STRUCT(Constraint, 48, 8, 4);
DEDE_ABI_STRUCT(LogTerm, 48, 8, 3);
DEDE_ABI_STRUCT(GlobalTerm, 64, 8, 5);
/// dede/settings.h
DEDE_ABI_STRUCT(SettingSpec, 224, 8, 13);
/// dede/status.h, dede/config_node.h, dede/csv.h, dede/stopwatch.h
DEDE_ABI_CLASS(Status, 40, 8);
DEDE_ABI_CLASS(ConfigNode, 160, 8);
DEDE_ABI_STRUCT(CsvOptions, 6, 1, 6);
DEDE_ABI_CLASS(CsvReader, 8, 8);
DEDE_ABI_CLASS(Stopwatch, 8, 8);
DEDE_ABI_CLASS(SharedTimeLimit, 32, 8);

/// The loader reads these three before it trusts anything else of a descriptor: they stay where
/// they are in every version (docs/abi.md).
static_assert(offsetof(::dede::PluginDescriptor, abi_version) == 0 &&
                  offsetof(::dede::PluginDescriptor, descriptor_size) == 4 &&
                  offsetof(::dede::PluginDescriptor, descriptor_align) == 8,
              "dede ABI: PluginDescriptor's first three fields never move");

#undef DEDE_ABI_STRUCT
#undef DEDE_ABI_CLASS

#endif
