// Loading plugins: dlopen, ABI check, validation of every definition against
// the registry, then registration. Loads are serialised; calls running in
// other threads see either the old or the new loop lists (Ufunc::AddLoop
// copies on write).
#include "ufuncx/plugin.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
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
    for (const std::string& alias : p.aliases) {
      if (FindUfunc(alias) || !names.insert(alias).second) {
        throw ValueError(where + ": its alias '" + alias + "' is taken");
      }
    }
    if (p.int_inputs_loop >= static_cast<int>(p.loops.size())) {
      throw ValueError(where + ": int_inputs_loop " + std::to_string(p.int_inputs_loop) +
                       " is not one of its loops");
    }
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

// dlopen maps a shared library and faults its pages in later: a file cut
// short (a copy that did not finish) raises SIGBUS inside the loader. So
// the file is checked first: an ELF shared object for this machine whose
// headers and every segment lie within the file. Throws ValueError.
void CheckElfFile(const std::string& path) {
  if (path.find('\0') != std::string::npos) {
    throw ValueError("plugin path contains an embedded null byte");
  }
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw ValueError("cannot load plugin " + path + ": " + std::strerror(errno));
  }
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  auto refuse = [&](const std::string& why) {
    throw ValueError("cannot load plugin " + path + ": " + why);
  };
  struct stat st{};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) refuse("not a regular file");
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  auto read_at = [&](void* dst, uint64_t bytes, uint64_t offset) {
    if (offset > size || bytes > size - offset ||
        pread(fd, dst, bytes, static_cast<off_t>(offset)) != static_cast<ssize_t>(bytes)) {
      refuse("the file is truncated or not a shared library (" + std::to_string(size) +
             " bytes)");
    }
  };
  Elf64_Ehdr eh{};
  read_at(&eh, sizeof eh, 0);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) refuse("not an ELF file");
#if defined(__x86_64__)
  constexpr int kMachine = EM_X86_64;
#elif defined(__aarch64__)
  constexpr int kMachine = EM_AARCH64;
#else
  constexpr int kMachine = -1;
#endif
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
      eh.e_type != ET_DYN || (kMachine >= 0 && eh.e_machine != kMachine)) {
    refuse("not a 64-bit shared library for this machine");
  }
  if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0) refuse("no program headers");
  for (int i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    read_at(&ph, sizeof ph, eh.e_phoff + static_cast<uint64_t>(i) * sizeof ph);
    if (ph.p_type == PT_LOAD || ph.p_type == PT_DYNAMIC) {
      if (ph.p_offset > size || ph.p_filesz > size - ph.p_offset) {
        refuse("a segment ends past the end of the file (" + std::to_string(size) +
               " bytes): the file is truncated");
      }
    }
  }
  if (eh.e_shnum > 0 && (eh.e_shoff > size ||
                         static_cast<uint64_t>(eh.e_shnum) * eh.e_shentsize > size - eh.e_shoff)) {
    refuse("the section headers end past the end of the file: the file is truncated");
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
  CheckElfFile(path);
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
  for (PluginUfunc& p : spec.ufuncs) {
    for (Loop& l : p.loops) l.id = -1;  // not in the built-ins' tables
  }
  const std::vector<std::string> names = internal::RegisterSpec(spec, spec.name + ".");
  state.by_handle[h] = names;
  return names;
}

}  // namespace ufuncx
