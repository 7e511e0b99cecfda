#include "settings/messages.hpp"

#include <algorithm>
#include <cmath>

#include "util/suggest.hpp"

namespace xfer {

using nlohmann::json;

std::string describe(const json& v) {
    switch (v.type()) {
        case json::value_t::string:
            return "\"" + v.get<std::string>() + "\"";
        case json::value_t::boolean:
            return std::string("a boolean (") + (v.get<bool>() ? "true" : "false") + ")";
        case json::value_t::number_integer:
        case json::value_t::number_unsigned:
            return "an integer (" + v.dump() + ")";
        case json::value_t::number_float: {
            // JSON has no NaN or infinity (dump() writes both as null): TOML's words for them.
            const double d = v.get<double>();
            if (std::isnan(d)) return "a float (nan)";
            if (std::isinf(d)) return d > 0 ? "a float (inf)" : "a float (-inf)";
            return "a float (" + v.dump() + ")";
        }
        case json::value_t::array:
            return "an array";
        case json::value_t::object:
            return "a table";
        default:
            return "nothing";
    }
}

namespace {

std::string listed(const std::vector<std::string>& names, const char* quote) {
    std::string s;
    for (size_t i = 0; i < names.size(); ++i) {
        if (i) s += i + 1 == names.size() ? " or " : ", ";
        s += quote + names[i] + quote;
    }
    return s;
}

}  // namespace

std::string quoted_list(const std::vector<std::string>& names) { return listed(names, "\""); }

std::string plain_list(const std::vector<std::string>& names) { return listed(names, ""); }

std::string with_values(const std::string& help, const std::vector<std::string>& values) {
    const std::string placeholder = "{values}";
    std::string out = help;
    if (const size_t at = out.find(placeholder); at != std::string::npos)
        out.replace(at, placeholder.size(), plain_list(values));
    return out;
}

SettingError not_one_of(const json& v, const std::vector<std::string>& allowed) {
    std::string msg = "expected " + (allowed.size() == 1 ? std::string() : "one of ") +
                      quoted_list(allowed) + "; got " + describe(v);
    if (v.is_string()) {
        // Compare against "numa:" rather than "numa:<node>" so that "numa" still finds it.
        std::vector<std::string> bare;
        for (const auto& a : allowed) bare.push_back(a.substr(0, a.find('<')));
        if (auto c = closest(v.get<std::string>(), bare)) {
            const size_t i = size_t(std::find(bare.begin(), bare.end(), *c) - bare.begin());
            msg += " (did you mean '" + allowed[i] + "'?)";
        }
    }
    return {msg};
}

SettingError expected(const std::string& what, const json& v) {
    return {"expected " + what + "; got " + describe(v)};
}

}  // namespace xfer
