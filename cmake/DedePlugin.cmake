# dede_add_plugin(<name> SOURCES <src>... [LIBS <target>...] [OUTPUT_DIRECTORY <dir>]
#                 [INSTALL_DESTINATION <dir>])
#
# Builds a dede domain plugin: a MODULE library named <name>.so (no "lib" prefix; name it like
# the plugin's DEDE_DECLARE_PLUGIN name). It links dede::plugin_sdk (the public headers and the
# shared dede_core) plus LIBS, compiles with hidden visibility and links with a version script
# that keeps the entry point dede_plugin_descriptor_v1 as the only exported symbol. The script
# also hides what visibility flags cannot: instantiations of standard-library templates (the std
# namespace has default visibility) and STB_GNU_UNIQUE statics, which would make the library
# impossible to unload.
#
# The library goes to OUTPUT_DIRECTORY, else to ${DEDE_PLUGIN_OUTPUT_DIRECTORY} if that variable
# is set, else to ${CMAKE_BINARY_DIR}/plugins, which is the directory `dede plugins` and the
# runtime scan. With INSTALL_DESTINATION, `cmake --install` copies it there.
#
# Shipped in the installed package (find_package(dede) provides it) and used in-tree.
include_guard(GLOBAL)

function(dede_add_plugin name)
  cmake_parse_arguments(ARG "" "OUTPUT_DIRECTORY;INSTALL_DESTINATION" "SOURCES;LIBS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "dede_add_plugin(${name}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "dede_add_plugin(${name}): SOURCES is required")
  endif()
  if(NOT TARGET dede::plugin_sdk)
    message(FATAL_ERROR "dede_add_plugin(${name}): target dede::plugin_sdk is not defined; "
                        "call find_package(dede) first")
  endif()

  add_library(${name} MODULE ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE dede::plugin_sdk ${ARG_LIBS})
  target_compile_features(${name} PRIVATE cxx_std_20)
  if(ARG_OUTPUT_DIRECTORY)
    set(output_dir ${ARG_OUTPUT_DIRECTORY})
  elseif(DEFINED DEDE_PLUGIN_OUTPUT_DIRECTORY)
    set(output_dir ${DEDE_PLUGIN_OUTPUT_DIRECTORY})
  else()
    set(output_dir ${CMAKE_BINARY_DIR}/plugins)
  endif()
  set(exports ${CMAKE_BINARY_DIR}/dede_plugin_exports.map)
  file(CONFIGURE OUTPUT ${exports}
       CONTENT "{\n  global: dede_plugin_descriptor_v1;\n  local: *;\n};\n")
  target_link_options(${name} PRIVATE "LINKER:--version-script=${exports}")
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LINK_DEPENDS ${exports}
    LIBRARY_OUTPUT_DIRECTORY ${output_dir})
  if(ARG_INSTALL_DESTINATION)
    install(TARGETS ${name} LIBRARY DESTINATION ${ARG_INSTALL_DESTINATION})
  endif()
endfunction()
