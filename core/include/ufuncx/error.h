// One exception hierarchy for the whole runtime. The Python bindings map each
// class to the Python exception NumPy would raise, so messages follow NumPy's
// wording where users are likely to match on them.
#pragma once

#include <stdexcept>
#include <string>

namespace ufuncx {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
class TypeError : public Error {
 public:
  using Error::Error;
};
class ValueError : public Error {
 public:
  using Error::Error;
};
// numpy.exceptions.AxisError (a ValueError and an IndexError in Python).
class AxisError : public ValueError {
 public:
  using ValueError::ValueError;
};
class IndexError : public Error {
 public:
  using Error::Error;
};
class OverflowError : public Error {
 public:
  using Error::Error;
};
// PyTorch's error class for shape and dtype checks (torch-style front ends).
class RuntimeError : public Error {
 public:
  using Error::Error;
};
class NotImplementedError : public Error {
 public:
  using Error::Error;
};

}  // namespace ufuncx
