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
  add_test(NAME FuzzReplay.${name} COMMAND ${name}_replay ${dir})
  set_tests_properties(FuzzReplay.${name} PROPERTIES TIMEOUT 120)
endfunction()

dede_fuzz_replay(fuzz_deployment LIBS dede_config)
dede_fuzz_replay(fuzz_mps LIBS dede_exact)
dede_fuzz_replay(fuzz_te_topology LIBS te_core)
dede_fuzz_replay(fuzz_te_traffic LIBS te_core)
dede_fuzz_replay(fuzz_cluster_data LIBS cluster_core)
dede_fuzz_replay(fuzz_gpu_trace LIBS gpu_placement_domain)
dede_fuzz_replay(fuzz_lb_loads LIBS lb_core)
