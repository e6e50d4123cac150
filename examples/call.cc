// The C++ API: look up a ufunc in the registry, call it on arrays (NumPy's
// broadcasting and loop selection), and see which SIMD target runs.
#include <cstdio>
#include <vector>

#include "ufuncx/ufuncx.h"

int main() {
  using ufuncx::Array;
  using ufuncx::DType;
  Array a(DType::kFloat32, {2, 3});
  Array b(DType::kFloat32, {3});
  for (int i = 0; i < 6; ++i) a.typed<float>()[i] = static_cast<float>(i);
  for (int i = 0; i < 3; ++i) b.typed<float>()[i] = 10.0f * static_cast<float>(i + 1);

  // (2,3) + (3,) broadcasts to (2,3).
  Array c = ufuncx::GetUfunc("add")(a, b);
  std::printf("add -> %s (%lld, %lld):", ufuncx::Name(c.dtype()),
              static_cast<long long>(c.shape()[0]), static_cast<long long>(c.shape()[1]));
  for (int i = 0; i < 6; ++i) std::printf(" %g", c.typed<float>()[i]);
  std::printf("\n");

  // int8 with float32: NumPy's rule picks the first loop both cast to
  // safely, 'ff->f'; the int8 operand is cast through a bounded buffer.
  Array x(DType::kInt8, {3});
  for (int i = 0; i < 3; ++i) x.typed<int8_t>()[i] = static_cast<int8_t>(-7 + 5 * i);
  Array m = ufuncx::GetUfunc("maximum")(x, b);
  std::printf("maximum(int8, float32) -> %s:", ufuncx::Name(m.dtype()));
  for (int i = 0; i < 3; ++i) std::printf(" %g", m.typed<float>()[i]);
  std::printf("\n");

  // Two outputs: divmod follows Python's signs.
  const std::vector<ufuncx::ArrayView> ins = {x.view(), x.view()};
  Array three(DType::kInt8, {});
  *three.typed<int8_t>() = 3;
  const std::vector<ufuncx::ArrayView> by3 = {x.view(), three.view()};
  std::vector<Array> qr = ufuncx::GetUfunc("divmod")(by3);
  std::printf("divmod(x, 3):");
  for (int i = 0; i < 3; ++i) {
    std::printf(" (%d, %d)", qr[0].typed<int8_t>()[i], qr[1].typed<int8_t>()[i]);
  }
  std::printf("\n");

  for (const auto& [family, target] : ufuncx::SimdTargets()) {
    std::printf("%s runs on %s\n", family.c_str(), target.c_str());
  }
  return 0;
}
