#pragma once
// "Can this run run here?", answered by what it runs on: each launcher (launch/launcher.hpp)
// and each backend (backend/backend.hpp) carries its own requirements and says, as
// nvbandwidth's test cases carry their own filter. A run either runs, is skipped (the reason
// goes into its notes and the plan goes on: a launcher this process cannot start, a setting
// only the backend that "auto" could not give can run), or is refused (a setting this machine
// cannot run: the preflight refuses the plan, and a run that gets this far fails).
#include <string>

namespace xfer {

struct RunHere {
    enum class Verdict { runs, skipped, refused };
    Verdict verdict = Verdict::runs;
    std::string reason;  // why it is skipped or refused; "" when it runs

    static RunHere runs() { return {}; }
    static RunHere skip(std::string why) { return {Verdict::skipped, std::move(why)}; }
    static RunHere refuse(std::string why) { return {Verdict::refused, std::move(why)}; }
    bool skipped() const { return verdict == Verdict::skipped; }
    bool refused() const { return verdict == Verdict::refused; }
};

}  // namespace xfer
