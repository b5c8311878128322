# Finds offlink's system dependencies; a missing one stops configuration with
# the Debian package that provides it.
find_package(PkgConfig QUIET)
if(NOT PKG_CONFIG_FOUND)
  message(FATAL_ERROR "pkg-config not found: apt-get install pkg-config")
endif()

function(ofl_require_pkg target module debpkg)
  pkg_check_modules(${target} QUIET IMPORTED_TARGET ${module})
  if(NOT ${target}_FOUND)
    message(FATAL_ERROR "${module} not found: apt-get install ${debpkg}")
  endif()
endfunction()

ofl_require_pkg(OFL_LIBELF libelf libelf-dev)
ofl_require_pkg(OFL_ZLIB zlib zlib1g-dev)
ofl_require_pkg(OFL_ZSTD libzstd libzstd-dev)
ofl_require_pkg(OFL_XXHASH libxxhash libxxhash-dev)
ofl_require_pkg(OFL_NETTLE nettle nettle-dev)
ofl_require_pkg(OFL_CURL libcurl libcurl4-openssl-dev)

find_path(OFL_PLUGIN_API_DIR plugin-api.h)
find_path(OFL_BFD_INCLUDE_DIR bfd.h)
find_library(OFL_BFD_LIBRARY bfd)
if(NOT OFL_PLUGIN_API_DIR OR NOT OFL_BFD_INCLUDE_DIR OR NOT OFL_BFD_LIBRARY)
  message(FATAL_ERROR "binutils' plugin-api.h or libbfd not found: apt-get install binutils-dev")
endif()
