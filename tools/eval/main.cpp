// dede_eval: placeholder driver, replaced by the full harness (CSV, tables, plots).
#include <cstdio>

#include "eval.h"

int main() {
  std::puts("dede_eval: harness under construction");
  return 0;
}
