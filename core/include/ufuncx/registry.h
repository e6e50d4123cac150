// The process-wide set of ufuncs. The generated registry fills it at start-up
// from ufuncs/ufuncs.toml; aliases ("abs", "true_divide") resolve to the same
// Ufunc object.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ufuncx/ufunc.h"

namespace ufuncx {

// Throws ValueError for an unknown name.
const Ufunc& GetUfunc(std::string_view name);
const Ufunc* FindUfunc(std::string_view name);
// Every ufunc once, in table order.
std::vector<const Ufunc*> AllUfuncs();
// (alias, canonical name) pairs.
std::vector<std::pair<std::string, std::string>> Aliases();

// Which Highway target each loop family's SIMD file selected on this CPU,
// as (family, target) pairs; a plugin's families as "plugin.family".
std::vector<std::pair<std::string, std::string>> SimdTargets();

struct PluginSpec;

namespace internal {
class Registry;
// Registers what a generated table describes (the built-ins, a plugin),
// each ufunc's loops as one batch, and records its SIMD targets (keys
// prefixed with `target_prefix`). The spec must be valid (LoadPlugin
// validates a plugin's first). Returns the names defined or extended.
std::vector<std::string> RegisterSpec(PluginSpec& spec, const std::string& target_prefix);
Registry& GlobalRegistry();
Ufunc& DefineUfunc(std::string name, std::vector<std::string> aliases, int nin,
                   int nout, Identity identity, bool reorderable,
                   std::string doc, UfuncTraits traits = {});
void RecordFamilyTarget(std::string family, std::string target);
}  // namespace internal

}  // namespace ufuncx
