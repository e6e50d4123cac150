// Loading plugins: dlopen, ABI check, validation of every definition against
// the registry, then registration. Loads are serialised; calls running in
// other threads see either the old or the new loop lists (Ufunc::AddLoop
// copies on write).
#include "ufuncx/plugin.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>

#include "ufuncx/error.h"
#include "ufuncx/registry.h"

namespace ufuncx {
namespace {

std::string TypesString(const Ufunc* u, const PluginUfunc& p, const Loop& l) {
  std::string s;
  const int nin = u ? u->nin() : p.nin;
  for (size_t i = 0; i < l.types.size(); ++i) {
    if (static_cast<int>(i) == nin) s += "->";
    s += TypeChar(l.types[i]);
  }
  return s;
}

// Throws ValueError for the first conflict; changes nothing.
void Validate(const PluginSpec& spec, const std::string& path) {
  std::set<std::string> names;
  for (const PluginUfunc& p : spec.ufuncs) {
    const std::string where = "plugin " + path + ": ufunc '" + p.name + "'";
    if (!names.insert(p.name).second) throw ValueError(where + " is described twice");
    const Ufunc* u = FindUfunc(p.name);
    if (!p.overload && u) {
      throw ValueError(where + " already exists; declare the entry as an overload to add loops");
    }
    if (p.overload && !u) throw ValueError(where + " does not exist, so it cannot be overloaded");
    if (u && (u->nin() != p.nin || u->nout() != p.nout)) {
      throw ValueError(where + " has nin=" + std::to_string(u->nin()) + ", nout=" +
                       std::to_string(u->nout()) + "; the plugin says nin=" +
                       std::to_string(p.nin) + ", nout=" + std::to_string(p.nout));
    }
    std::set<std::vector<DType>> seen;
    if (u) {
      for (const Loop& l : u->loops()) seen.insert(l.types);
    }
    for (const Loop& l : p.loops) {
      if (static_cast<int>(l.types.size()) != p.nin + p.nout || !l.slots.strided) {
        throw ValueError(where + ": a loop has the wrong arity or no strided slot");
      }
      if (!seen.insert(l.types).second) {
        throw ValueError(where + ": signature " + TypesString(u, p, l) + " is already defined");
      }
    }
  }
}

struct Loaded {
  std::mutex mu;
  std::map<void*, std::vector<std::string>> by_handle;
};

Loaded& State() {
  static Loaded* s = new Loaded;  // never destroyed: plugins stay loaded
  return *s;
}

}  // namespace

std::vector<std::string> LoadPlugin(const std::string& path) {
  Loaded& state = State();
  std::lock_guard<std::mutex> lock(state.mu);
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* err = dlerror();
    throw ValueError("cannot load plugin " + path + ": " + (err ? err : "unknown error"));
  }
  if (auto it = state.by_handle.find(h); it != state.by_handle.end()) {
    dlclose(h);  // drop the extra reference; already registered
    return it->second;
  }
  auto fail = [&](const std::string& msg) {
    dlclose(h);
    throw ValueError(msg);
  };
  auto abi = reinterpret_cast<int (*)()>(dlsym(h, "ufuncx_plugin_abi_version"));
  auto describe = reinterpret_cast<void (*)(PluginSpec*)>(dlsym(h, "ufuncx_plugin_describe"));
  if (!abi || !describe) fail("not a ufuncx plugin (no ufuncx_plugin_* symbols): " + path);
  if (abi() != kPluginAbiVersion) {
    fail("plugin " + path + " was built for ufuncx plugin ABI " + std::to_string(abi()) +
         ", this ufuncx has ABI " + std::to_string(kPluginAbiVersion) + "; rebuild it");
  }
  PluginSpec spec;
  describe(&spec);
  try {
    Validate(spec, path);
  } catch (const ValueError& e) {
    fail(e.what());
  }
  std::vector<std::string> names;
  for (PluginUfunc& p : spec.ufuncs) {
    Ufunc* u = p.overload ? const_cast<Ufunc*>(FindUfunc(p.name))
                          : &internal::DefineUfunc(p.name, {}, p.nin, p.nout, p.identity,
                                                   p.reorderable, p.doc);
    if (!p.signature.empty() && !p.overload) u->SetCoreSignature(p.signature);
    for (Loop& l : p.loops) {
      l.shard = "plugin:" + spec.name;
      l.id = -1;
      u->AddLoop(std::move(l));
    }
    names.push_back(p.name);
  }
  state.by_handle[h] = names;
  return names;
}

}  // namespace ufuncx
