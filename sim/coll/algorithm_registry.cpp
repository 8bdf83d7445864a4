#include "sim/coll/algorithm_registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace linksim::coll {

// Each sim/coll/algorithms/<name>.cpp defines one of these. The list is written out, rather
// than filled by static initialisers in those files, because a static library leaves out an
// object file nothing refers to, and because its order is part of the contract.
namespace algorithms {
const CollectiveAlgorithm& ring();
const CollectiveAlgorithm& tree();
const CollectiveAlgorithm& nvls();
const CollectiveAlgorithm& pairwise();
const CollectiveAlgorithm& pat();
const CollectiveAlgorithm& nvls_tree();
const CollectiveAlgorithm& collnet_direct();
const CollectiveAlgorithm& collnet_chain();
}  // namespace algorithms

namespace {

bool same_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool answers_to(const CollectiveAlgorithm& a, std::string_view name) {
  if (same_ignoring_case(a.name(), name)) return true;
  const auto aliases = a.aliases();
  return std::any_of(aliases.begin(), aliases.end(),
                     [&](std::string_view alias) { return same_ignoring_case(alias, name); });
}

}  // namespace

const AlgorithmRegistry& AlgorithmRegistry::builtin() {
  static const AlgorithmRegistry registry(
      {&algorithms::ring(), &algorithms::tree(), &algorithms::nvls(), &algorithms::pairwise(),
       &algorithms::pat(), &algorithms::nvls_tree(), &algorithms::collnet_direct(),
       &algorithms::collnet_chain()});
  return registry;
}

AlgorithmRegistry::AlgorithmRegistry(std::vector<const CollectiveAlgorithm*> algorithms)
    : algorithms_(std::move(algorithms)) {
  for (std::size_t i = 0; i < algorithms_.size(); ++i) {
    std::vector<std::string_view> spellings = algorithms_[i]->aliases();
    spellings.push_back(algorithms_[i]->name());
    for (std::size_t j = 0; j < i; ++j) {
      for (std::string_view s : spellings) {
        if (answers_to(*algorithms_[j], s)) {
          throw std::logic_error(
              fmt::format("algorithm name \"{}\" is registered twice ({} and {})", s,
                          algorithms_[j]->name(), algorithms_[i]->name()));
        }
      }
    }
  }
}

std::vector<std::string> AlgorithmRegistry::names() const {
  std::vector<std::string> out;
  for (const auto* a : algorithms_)
    out.emplace_back(a->name());
  return out;
}

std::optional<Algorithm> AlgorithmRegistry::find(std::string_view name) const {
  for (const auto* a : algorithms_) {
    if (answers_to(*a, name)) return a->id();
  }
  return std::nullopt;
}

std::string AlgorithmRegistry::unknown_name_message(std::string_view name) const {
  return fmt::format("unknown algorithm \"{}\"; expected one of {}", name,
                     fmt::join(names(), ", "));
}

const CollectiveAlgorithm& AlgorithmRegistry::get(Algorithm a) const {
  for (const auto* p : algorithms_) {
    if (p->id() == a) return *p;
  }
  throw std::logic_error(fmt::format("algorithm {} is not registered", a.name()));
}

double base_latency_s(Algorithm a, Protocol p) {
  return AlgorithmRegistry::builtin().get(a).base_latency_s(p);
}

double hop_latency_s(Algorithm a, Protocol p, HwClass c) {
  return AlgorithmRegistry::builtin().get(a).hop_latency_s(p, c);
}

}  // namespace linksim::coll
