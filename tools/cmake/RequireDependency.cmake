# ufx_require(<package> <debian-package> [find_package arguments...])
#
# find_package() that, when the package is missing, stops with the Debian
# package to install and the script that installs every build dependency,
# instead of CMake's generic "set <package>_DIR" advice.
macro(ufx_require name debian)
  find_package(${name} ${ARGN} QUIET)
  if(NOT ${name}_FOUND)
    message(FATAL_ERROR
      "ufuncx needs ${name}, which CMake cannot find. On Debian or Ubuntu: "
      "`sudo apt-get install ${debian}`, or `bash tools/setup.sh` from the "
      "source tree, which installs every build dependency (apt-get and pip).")
  endif()
endmacro()
