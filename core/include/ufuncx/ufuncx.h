// The whole public C++ API.
#pragma once

#include "ufuncx/array.h"
#include "ufuncx/dtype.h"
#include "ufuncx/error.h"
#include "ufuncx/loop.h"
#include "ufuncx/memory.h"
#include "ufuncx/plugin.h"
#include "ufuncx/registry.h"
#include "ufuncx/scalar.h"
#include "ufuncx/ufunc.h"
#include "ufuncx/version.h"
