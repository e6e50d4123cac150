// Loads the plugin built from kernels.toml and calls its ufuncs from C++.
//   ./use_plugin path/to/kernels.so
#include <cstdio>

#include "ufuncx/ufuncx.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s path/to/kernels.so\n", argv[0]);
    return 2;
  }
  for (const std::string& name : ufuncx::LoadPlugin(argv[1])) {
    std::printf("loaded %s\n", name.c_str());
  }
  ufuncx::Array a(ufuncx::DType::kInt32, {4}), b(ufuncx::DType::kInt32, {4});
  const int av[] = {-3, 2, -7, 5}, bv[] = {1, -4, 6, -2};
  for (int i = 0; i < 4; ++i) a.typed<int32_t>()[i] = av[i], b.typed<int32_t>()[i] = bv[i];
  const ufuncx::Ufunc& absmax = ufuncx::GetUfunc("absmax");
  ufuncx::Array c = absmax(a, b);
  std::printf("absmax:");
  for (int i = 0; i < 4; ++i) std::printf(" %d", c.typed<int32_t>()[i]);
  std::printf("; reduce: %d\n", *absmax.Reduce(a).typed<int32_t>());
  ufuncx::Array x(ufuncx::DType::kFloat64, {3});
  const double xv[] = {-0.5, 0.25, 1.5};
  for (int i = 0; i < 3; ++i) x.typed<double>()[i] = xv[i];
  ufuncx::Array y = ufuncx::GetUfunc("clamp01")(x);
  std::printf("clamp01: %g %g %g\n", y.typed<double>()[0], y.typed<double>()[1], y.typed<double>()[2]);
  return 0;
}
