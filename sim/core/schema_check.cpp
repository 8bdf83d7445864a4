#include "sim/core/schema_check.hpp"

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

namespace linksim {

std::vector<std::string> schema_violations(const Json& document, const Json& schema) {
  // valijson's adapter reads nlohmann::json; the ordered form converts losslessly.
  const nlohmann::json plain_schema = nlohmann::json::parse(schema.dump());
  const nlohmann::json plain_doc = nlohmann::json::parse(document.dump());
  valijson::Schema compiled;
  valijson::SchemaParser parser;
  valijson::adapters::NlohmannJsonAdapter schema_adapter(plain_schema);
  parser.populateSchema(schema_adapter, compiled);
  valijson::Validator validator;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter doc_adapter(plain_doc);
  std::vector<std::string> out;
  if (validator.validate(compiled, doc_adapter, &results)) return out;
  valijson::ValidationResults::Error error;
  while (results.popError(error)) {
    std::string where;
    for (const auto& c : error.context)
      where += c == "<root>" ? "" : c;
    out.push_back((where.empty() ? "/" : where) + ": " + error.description);
  }
  return out;
}

}  // namespace linksim
