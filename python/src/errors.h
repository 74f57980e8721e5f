// The exceptions the module raises besides ValueError (std::invalid_argument): registered in
// module.cpp as dede.ModelError (a ValueError: the model's own checks, Problem::Validate, with
// its message) and dede.DeploymentError (a deployment file, plugin or database that cannot be
// used: the message the `dede` command prints).
#pragma once

#include <stdexcept>
#include <string>

namespace dede::python {

class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class DeploymentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace dede::python
