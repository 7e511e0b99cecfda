#pragma once
#include <string>

namespace xfer {

// `xferlab report`: re-render a results.json or journal.jsonl with this build's analysis.
int cmd_report(const std::string& file, const std::string& format);

}  // namespace xfer
