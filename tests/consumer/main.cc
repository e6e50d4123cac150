// Proves find_package(ufuncx) gives a working ufuncx::ufuncx.
#include <cstdio>

#include "ufuncx/ufuncx.h"

int main() {
  ufuncx::Array a(ufuncx::DType::kFloat64, {4});
  for (int i = 0; i < 4; ++i) a.typed<double>()[i] = i * i;
  ufuncx::Array r = ufuncx::GetUfunc("sqrt")(a);
  for (int i = 0; i < 4; ++i) {
    if (r.typed<double>()[i] != i) {
      std::printf("consumer: wrong result at %d\n", i);
      return 1;
    }
  }
  std::printf("consumer: find_package(ufuncx) works (%zu ufuncs)\n", ufuncx::AllUfuncs().size());
  return 0;
}
