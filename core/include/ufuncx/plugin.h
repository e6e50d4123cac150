// Plugins: shared libraries written by ufuncx-codegen from a user's table,
// adding new ufuncs and new overloads of existing ones at run time.
#pragma once

#include <string>
#include <vector>

#include "ufuncx/ufunc.h"

namespace ufuncx {

// Bumped whenever Loop, LoopSlots, the loop ABI or PluginSpec change; a
// plugin carries the version it was built for.
// 2: IndexedIndices::stop; 3: LoopSlots::rows; 4: accumulate's start value
// (aux) and LoopSlots::may_fail; 5: the indexed slot checks raw indices
// always (IndexedIndices::stop may be null; wrap may be set with it);
// 6: PluginUfunc::traits, Loop without its shard name; 7: PluginUfunc's
// aliases and int_inputs_loop, PluginSpec::simd_targets (the built-ins are
// described by the same spec and registered by the same path); 8:
// LoopSlots::gather_strided; 9: LoopSlots::strided_simd; 10:
// IndexedIndices::lo.
inline constexpr int kPluginAbiVersion = 10;

// One table entry: a new ufunc, or (overload) loops for an existing one,
// appended after its loops in table order.
struct PluginUfunc {
  std::string name;
  std::vector<std::string> aliases;  // new ufuncs only
  int nin = 0;
  int nout = 0;
  bool overload = false;
  Identity identity;
  bool reorderable = false;
  std::string doc;
  std::string signature;  // core dims of a generalized ufunc, else empty
  UfuncTraits traits;     // new ufuncs only; an overload keeps the ufunc's
  std::vector<Loop> loops;
  // NumPy's true-division rule (Ufunc::SetIntInputsLoop): the index of the
  // loop that all-integer inputs take, or -1.
  int int_inputs_loop = -1;
};

// What a generated table describes: its ufuncs and, per SIMD loop file, the
// Highway target it chose on this CPU.
struct PluginSpec {
  std::string name;
  std::vector<PluginUfunc> ufuncs;
  std::vector<std::pair<std::string, std::string>> simd_targets;
};

// Loads the plugin at `path` and registers everything it describes, all or
// nothing. Throws ValueError, leaving the registry unchanged, when the file
// is not a ufuncx plugin, was built for another ABI version, defines a ufunc
// whose name is taken, overloads a missing ufunc or one with another
// nin/nout, or gives a signature the ufunc already has. Loading the same
// file again does nothing. Safe while other threads call ufuncs. Returns the
// names of the ufuncs defined or extended.
std::vector<std::string> LoadPlugin(const std::string& path);

}  // namespace ufuncx

// What a plugin exports (the generated plugin.cc defines both).
extern "C" {
int ufuncx_plugin_abi_version(void);
void ufuncx_plugin_describe(ufuncx::PluginSpec* spec);
}
