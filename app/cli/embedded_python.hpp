#pragma once
// Which Python xferlab embeds, as `xferlab devices` prints it.
#include <nlohmann/json.hpp>
#include <string>

namespace xfer {

// Starts the embedded interpreter (configured from chosen_python) and describes it; when it
// cannot start, {"started": false, "configured": ..., "error": why}.
nlohmann::json embedded_python_facts();

// The facts as text: version, executable, prefix (and base_prefix for a venv), the
// site-packages in sys.path, and where the choice of interpreter came from.
std::string format_embedded_python(const nlohmann::json& facts);

}  // namespace xfer
