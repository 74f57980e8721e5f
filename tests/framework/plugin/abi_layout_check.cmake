# The compiler's check of the plugin ABI (framework/include/dede/abi_layout.h) on copies of the
# SDK headers: the headers as they are compile; a field added to AdmmOptions where it fits in
# padding (the struct keeps its size: the case of entry_cost_side, added without a bump) and a
# bump of kPluginAbiVersion without a new record each stop the build with the message that says
# what to do.
#
#   cmake -DCXX=c++ -DINCLUDE_DIR=framework/include -DWORK=DIR -P abi_layout_check.cmake
foreach(var CXX INCLUDE_DIR WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "abi_layout_check.cmake: -D${var}=... is required")
  endif()
endforeach()

# Compiles a file that includes dede/plugin.h against ${WORK}/include; sets rc and err.
function(compile_probe)
  file(WRITE ${WORK}/probe.cpp "#include \"dede/plugin.h\"\nint main() { return 0; }\n")
  execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only -I${WORK}/include ${WORK}/probe.cpp
                  RESULT_VARIABLE result ERROR_VARIABLE error OUTPUT_QUIET)
  set(rc ${result} PARENT_SCOPE)
  set(err "${error}" PARENT_SCOPE)
endfunction()

# Copies the headers, replaces `from` by `to` in dede/${file}, compiles, and expects `pattern`.
function(expect_rejected file from to pattern)
  file(REMOVE_RECURSE ${WORK}/include)
  file(COPY ${INCLUDE_DIR}/dede DESTINATION ${WORK}/include)
  file(READ ${WORK}/include/dede/${file} text)
  string(FIND "${text}" "${from}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "dede/${file} no longer holds '${from}': update this test")
  endif()
  string(REPLACE "${from}" "${to}" changed "${text}")
  file(WRITE ${WORK}/include/dede/${file} "${changed}")
  compile_probe()
  if(rc EQUAL 0)
    message(FATAL_ERROR "'${from}' -> '${to}' in dede/${file} compiled: the ABI check missed it")
  endif()
  if(NOT err MATCHES "${pattern}")
    message(FATAL_ERROR "'${from}' -> '${to}' in dede/${file} failed, but not with "
                        "'${pattern}':\n${err}")
  endif()
  message(STATUS "rejected as expected: ${file}: '${to}'")
endfunction()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/include)
file(COPY ${INCLUDE_DIR}/dede DESTINATION ${WORK}/include)
compile_probe()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the SDK headers as they are do not compile:\n${err}")
endif()

# A bool before `int max_iterations` lands in the 4 bytes of padding before `double rho`.
expect_rejected(solver.h
  "struct AdmmOptions {\n"
  "struct AdmmOptions {\n  bool added_in_padding = false;\n"
  "dede ABI: dede::AdmmOptions no longer has [0-9]+ fields")
expect_rejected(solver.h
  "  double eps_rel = 1e-4;\n"
  "  long double eps_rel = 1e-4;\n"
  "dede ABI: sizeof\\(dede::AdmmOptions\\) is no longer")
expect_rejected(plugin.h
  "inline constexpr std::uint32_t kPluginAbiVersion = "
  "inline constexpr std::uint32_t kPluginAbiVersion = 1 + "
  "records the layouts of another ABI version than kPluginAbiVersion")
file(REMOVE_RECURSE ${WORK})
