# The fuzz harnesses built without libFuzzer (replay_main.cpp) replay their regression inputs
# in the regular test suite: FuzzReplay.<harness> runs every file in
# tests/fuzz/regressions/<harness>/ (inputs that once crashed or hung a reader).
function(dede_fuzz_replay name)
  cmake_parse_arguments(ARG "" "" "LIBS" ${ARGN})
  set(dir ${CMAKE_CURRENT_LIST_DIR}/regressions/${name})
  if(NOT EXISTS ${dir})
    return()
  endif()
  add_executable(${name}_replay ${CMAKE_CURRENT_LIST_DIR}/${name}.cpp ${CMAKE_CURRENT_LIST_DIR}/replay_main.cpp)
  target_include_directories(${name}_replay PRIVATE ${CMAKE_CURRENT_LIST_DIR} ${PROJECT_SOURCE_DIR}/framework/src)
  target_link_libraries(${name}_replay PRIVATE ${ARG_LIBS})
  target_compile_definitions(${name}_replay PRIVATE DEDE_FUZZ_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data")
  add_test(NAME FuzzReplay.${name} COMMAND ${name}_replay ${dir})
  dede_test_timeout(120 FuzzReplay.${name})
endfunction()

dede_fuzz_replay(fuzz_csv LIBS dede_core)
dede_fuzz_replay(fuzz_deployment LIBS dede_config)
dede_fuzz_replay(fuzz_mps LIBS dede_exact)
dede_fuzz_replay(fuzz_te_topology LIBS te_core)
dede_fuzz_replay(fuzz_te_traffic LIBS te_core)
dede_fuzz_replay(fuzz_cluster_data LIBS cluster_core)
dede_fuzz_replay(fuzz_gpu_trace LIBS gpu_placement_domain)
dede_fuzz_replay(fuzz_lb_loads LIBS lb_core)
dede_fuzz_replay(fuzz_events LIBS te_core cluster_core gpu_placement_domain lb_core dede_config dede_plugin)
find_package(nlohmann_json 3 REQUIRED)
dede_fuzz_replay(fuzz_convert LIBS gpu_placement_sim nlohmann_json::nlohmann_json)
target_sources(fuzz_convert_replay PRIVATE ${PROJECT_SOURCE_DIR}/tools/dede/convert.cpp
               ${PROJECT_SOURCE_DIR}/tools/dede/convert_philly.cpp
               ${PROJECT_SOURCE_DIR}/tools/dede/convert_gpu.cpp
               ${PROJECT_SOURCE_DIR}/tools/dede/convert_nodes.cpp)
