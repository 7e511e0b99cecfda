#pragma once
#include <string>

namespace xfer {

// `xferlab report`: re-render a results.json or journal.jsonl with this build's analysis;
// `brief`: the table's runs, bandwidth and summary only.
int cmd_report(const std::string& file, const std::string& format, bool brief = false);

}  // namespace xfer
