# offlink's CMake package: find_package(offlink) with CMAKE_PREFIX_PATH=<prefix>
# (docs/integration.md, "CMake").  Targets to link against; they add link
# options only, no library:
#   offlink::link    the link goes through offlink, with or without offload
#                    flags in the link options: for clang -B<prefix>/bin
#                    -B<prefix>/libexec/offlink/compat -fuse-ld=offlink
#                    (offlink --ldflags), for gcc -B<prefix>/libexec/offlink/gcc/
#                    (by the compiler of the target's link language)
#   offlink::plugin  ld.bfd loads offlink-plugin.so instead
#   offlink::compat  only offlink's clang-linker-wrapper (offlink --ldflags
#                    --compat), for a build that picks its own -fuse-ld
#   offlink::offlink the offlink executable, for custom commands
# The same file serves an install and a build tree (build/lib/cmake/offlink),
# which lay out the plugin differently.
if(CMAKE_VERSION VERSION_LESS 3.18)
  message(FATAL_ERROR "offlink's CMake package needs CMake 3.18 ($<LINK_LANG_AND_ID>)")
endif()
if(TARGET offlink::link)
  return()
endif()

get_filename_component(_offlink_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(_offlink_compat "${_offlink_prefix}/libexec/offlink/compat")
set(_offlink_plugin "${_offlink_prefix}/lib/offlink/offlink-plugin.so")
if(NOT EXISTS "${_offlink_plugin}")
  set(_offlink_plugin "${_offlink_prefix}/lib/offlink-plugin.so")
endif()

# Which driver links: clang takes any -fuse-ld name, gcc only fixed ones.
set(_offlink_clang "")
set(_offlink_gcc "")
foreach(lang C CXX)
  string(APPEND _offlink_clang "$<LINK_LANG_AND_ID:${lang},Clang>,")
  string(APPEND _offlink_gcc "$<LINK_LANG_AND_ID:${lang},GNU>,")
endforeach()
set(_offlink_clang "$<OR:${_offlink_clang}0>")
set(_offlink_gcc "$<OR:${_offlink_gcc}0>")

add_library(offlink::link INTERFACE IMPORTED)
set_target_properties(offlink::link PROPERTIES INTERFACE_LINK_OPTIONS
  "$<${_offlink_clang}:-B${_offlink_prefix}/bin>;$<${_offlink_clang}:-B${_offlink_compat}>;$<${_offlink_clang}:-fuse-ld=offlink>;$<${_offlink_gcc}:-B${_offlink_prefix}/libexec/offlink/gcc/>")

add_library(offlink::plugin INTERFACE IMPORTED)
set_target_properties(offlink::plugin PROPERTIES INTERFACE_LINK_OPTIONS
  "-fuse-ld=bfd;-Wl,-plugin,${_offlink_plugin}")

add_library(offlink::compat INTERFACE IMPORTED)
set_target_properties(offlink::compat PROPERTIES INTERFACE_LINK_OPTIONS
  "-B${_offlink_compat}")

add_executable(offlink::offlink IMPORTED)
set_target_properties(offlink::offlink PROPERTIES IMPORTED_LOCATION "${_offlink_prefix}/bin/offlink")

unset(_offlink_prefix)
unset(_offlink_compat)
unset(_offlink_plugin)
unset(_offlink_clang)
unset(_offlink_gcc)
