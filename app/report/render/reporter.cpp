#include "report/render/reporter.hpp"

#include "report/render/formats.hpp"

namespace xfer {

std::unique_ptr<Reporter> make_reporter(const std::string& name, ReportDetail detail,
                                        const ReportLimits& limits) {
    const Format* format = find_format(name);
    return format ? format->make(FormatOptions{detail, limits}) : nullptr;
}

}  // namespace xfer
