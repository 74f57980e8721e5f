# Installs the plugin SDK as a CMake package, so a third party builds a domain plugin out of tree:
#
#   cmake --install build --prefix /opt/dede                   # everything with install rules
#   cmake --install build --prefix /opt/dede --component sdk    # only the SDK
#   # consumer: find_package(dede 0.1 REQUIRED) with -DCMAKE_PREFIX_PATH=/opt/dede
#   #           dede_add_plugin(my_domain SOURCES my_domain_plugin.cpp)
#
# Layout under the prefix:
#   include/dede/*.h                    public headers
#   lib/libdede_core.so*                the runtime part of the SDK (Problem, Status, ConfigNode)
#   lib/cmake/dede/                     dedeConfig.cmake, dedeConfigVersion.cmake, dedeTargets.cmake,
#                                       DedePlugin.cmake (dede_add_plugin)
# Imported targets: dede::core (the shared library) and dede::plugin_sdk (what plugins link).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(DEDE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/dede)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/framework/include/dede
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT sdk
        FILES_MATCHING PATTERN "*.h"
        # Host-side solvers: the SDK does not link them (plugins use SolverServices).
        PATTERN "host_solvers.h" EXCLUDE)

install(TARGETS dede_core dede_plugin_sdk
        EXPORT dedeTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT sdk
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT sdk
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT sdk
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(EXPORT dedeTargets
        NAMESPACE dede::
        DESTINATION ${DEDE_INSTALL_CMAKEDIR}
        COMPONENT sdk)

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/dedeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/dedeConfig.cmake
  INSTALL_DESTINATION ${DEDE_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/dedeConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMajorVersion)

install(FILES ${PROJECT_BINARY_DIR}/cmake/dedeConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/dedeConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/DedePlugin.cmake
        DESTINATION ${DEDE_INSTALL_CMAKEDIR}
        COMPONENT sdk)
