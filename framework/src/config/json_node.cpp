#include "config/json_node.h"

#include <nlohmann/json.hpp>

namespace dede::internal {
namespace {

constexpr std::size_t kMaxJsonBytes = std::size_t{1} << 20;
constexpr int kMaxDepth = 64;

Result<ConfigNode> Convert(const nlohmann::json& value,
                           const std::string& origin,
                           const std::string& path,
                           int depth) {
  if (depth > kMaxDepth) {
    return InvalidArgument(origin + ": " + path + " nests deeper than " +
                           std::to_string(kMaxDepth) + " levels");
  }
  switch (value.type()) {
    case nlohmann::json::value_t::object: {
      ConfigNode node = ConfigNode::Map(origin, 0, 0, path);
      for (const auto& [key, item] : value.items()) {
        Result<ConfigNode> child = Convert(item, origin, path + "." + key, depth + 1);
        if (!child.ok()) return child.status();
        node.Insert(key, std::move(child.value()));
      }
      return node;
    }
    case nlohmann::json::value_t::array: {
      ConfigNode node = ConfigNode::List(origin, 0, 0, path);
      std::size_t k = 0;
      for (const nlohmann::json& item : value) {
        Result<ConfigNode> child =
            Convert(item, origin, path + "[" + std::to_string(k++) + "]", depth + 1);
        if (!child.ok()) return child.status();
        node.Append(std::move(child.value()));
      }
      return node;
    }
    case nlohmann::json::value_t::string:
      return ConfigNode::Scalar(value.get<std::string>(), origin, 0, 0, path);
    case nlohmann::json::value_t::null:
      return ConfigNode();
    default:  // numbers and booleans, in their JSON spelling
      return ConfigNode::Scalar(value.dump(), origin, 0, 0, path);
  }
}

}  // namespace

Result<ConfigNode> JsonToConfigNode(const std::string& json,
                                    const std::string& origin,
                                    const std::string& root_path) {
  if (json.size() > kMaxJsonBytes) {
    return InvalidArgument(origin + ": " + root_path + " is " + std::to_string(json.size()) +
                           " bytes, more than the " + std::to_string(kMaxJsonBytes) + " accepted");
  }
  nlohmann::json value;
  try {
    value = nlohmann::json::parse(json);
  } catch (const nlohmann::json::exception& e) {
    return InvalidArgument(origin + ": " + root_path + " is not valid JSON: " + e.what());
  }
  return Convert(value, origin, root_path, 0);
}

}  // namespace dede::internal
