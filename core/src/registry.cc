// The global registry. Ufunc objects live in a deque so references handed
// out stay valid as later definitions (plugins) are added.
#include <cstdint>
#include <cstdlib>
#include <cctype>
#include <deque>
#include <map>
#include <mutex>

#include <hwy/targets.h>

#include "generated.h"
#include "ufuncx/error.h"
#include "ufuncx/plugin.h"
#include "ufuncx/registry.h"

namespace ufuncx {
namespace internal {

class Registry {
 public:
  std::mutex mu;
  std::deque<Ufunc> ufuncs;
  std::map<std::string, Ufunc*, std::less<>> by_name;
  std::vector<std::pair<std::string, std::string>> aliases;
  std::vector<std::pair<std::string, std::string>> family_targets;
};

Registry& GlobalRegistry() {
  static Registry* r = new Registry;  // never destroyed: used at exit
  return *r;
}

Ufunc& DefineUfunc(std::string name, std::vector<std::string> aliases, int nin,
                   int nout, Identity identity, bool reorderable,
                   std::string doc, UfuncTraits traits) {
  Registry& r = GlobalRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (r.by_name.count(name)) {
    throw ValueError("ufunc '" + name + "' is already defined");
  }
  Ufunc& u = r.ufuncs.emplace_back(name, nin, nout, identity, reorderable,
                                   std::move(doc), std::move(traits));
  r.by_name[name] = &u;
  for (std::string& a : aliases) {
    if (a == name) continue;
    r.by_name[a] = &u;
    r.aliases.emplace_back(a, name);
  }
  return u;
}

void RecordFamilyTarget(std::string family, std::string target) {
  Registry& r = GlobalRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.family_targets.emplace_back(std::move(family), std::move(target));
}

// (Not FindUfunc: the built-ins register from inside its first call.)
Ufunc* Defined(const std::string& name) {
  Registry& r = GlobalRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.by_name.find(name);
  if (it == r.by_name.end()) throw ValueError("ufunc '" + name + "' does not exist");
  return it->second;
}

std::vector<std::string> RegisterSpec(PluginSpec& spec, const std::string& target_prefix) {
  std::vector<std::string> names;
  for (PluginUfunc& p : spec.ufuncs) {
    Ufunc* u = p.overload ? Defined(p.name)
                          : &DefineUfunc(p.name, p.aliases, p.nin, p.nout, p.identity,
                                         p.reorderable, p.doc, p.traits);
    if (!p.signature.empty() && !p.overload) u->SetCoreSignature(p.signature);
    const int before = static_cast<int>(u->loops().size());
    u->AddLoops(std::move(p.loops));
    if (p.int_inputs_loop >= 0) u->SetIntInputsLoop(before + p.int_inputs_loop);
    names.push_back(p.name);
  }
  for (const auto& [family, target] : spec.simd_targets) {
    RecordFamilyTarget(target_prefix + family, target);
  }
  return names;
}

namespace {
// UFUNCX_SIMD_TARGET=<Highway target name> (AVX2, SSE4, EMU128, ...; any
// case): the loops and the scatter combiners use that target or a lesser
// one even where the CPU has better, as NumPy's NPY_DISABLE_CPU_FEATURES
// does for its own loops. For comparing results and speed across machines
// on one machine. A name this CPU lacks, or one Highway does not know,
// leaves the targets alone.
void LimitSimdTargetsFromEnvironment() {
  const char* want = std::getenv("UFUNCX_SIMD_TARGET");
  if (want == nullptr || *want == '\0') return;
  auto same_name = [](const char* a, const char* b) {
    for (; *a && *b; ++a, ++b) {
      if (std::tolower(static_cast<unsigned char>(*a)) !=
          std::tolower(static_cast<unsigned char>(*b))) return false;
    }
    return *a == *b;
  };
  const int64_t supported = hwy::SupportedTargets();
  for (int bit = 0; bit < 63; ++bit) {
    const int64_t t = int64_t{1} << bit;
    if ((supported & t) == 0 || !same_name(hwy::TargetName(t), want)) continue;
    // Highway's better targets are the lower bits.
    const int64_t kept = supported & ~(t - 1);
    hwy::SetSupportedTargetsForTest(kept);
    return;
  }
}

void RegisterBuiltins() {
  LimitSimdTargetsFromEnvironment();
  PluginSpec spec;
  DescribeBuiltins(&spec);
  RegisterSpec(spec, "");
}

Registry& Loaded() {
  static const bool once = (RegisterBuiltins(), true);
  (void)once;
  return GlobalRegistry();
}
}  // namespace

}  // namespace internal

const Ufunc* FindUfunc(std::string_view name) {
  internal::Registry& r = internal::Loaded();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.by_name.find(name);
  return it == r.by_name.end() ? nullptr : it->second;
}

const Ufunc& GetUfunc(std::string_view name) {
  const Ufunc* u = FindUfunc(name);
  if (!u) throw ValueError("no ufunc named '" + std::string(name) + "'");
  return *u;
}

std::vector<const Ufunc*> AllUfuncs() {
  internal::Registry& r = internal::Loaded();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<const Ufunc*> out;
  for (const Ufunc& u : r.ufuncs) out.push_back(&u);
  return out;
}

std::vector<std::pair<std::string, std::string>> Aliases() {
  internal::Registry& r = internal::Loaded();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.aliases;
}

std::vector<std::pair<std::string, std::string>> SimdTargets() {
  internal::Registry& r = internal::Loaded();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.family_targets;
}

}  // namespace ufuncx
