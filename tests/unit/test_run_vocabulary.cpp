// One source of names: every launcher and backend in settings/vocabulary.cpp has an
// implementation, and every implementation says the same about itself as its descriptor.
#include "backend/backend.hpp"
#include "settings/vocabulary.hpp"
#include "run/plan/launchers.hpp"
#include "support/catch.hpp"

using namespace xfer;

TEST_CASE("every launcher in the vocabulary is registered, and nothing else",
          "[run][vocabulary]") {
    LauncherRegistry registry = make_launcher_registry();
    // A launcher that observes a program (`xferlab watch`'s "watched") runs nothing itself.
    CHECK(registry.names().size() == launcher_names().size());
    for (const auto& d : launcher_descriptors()) {
        INFO("launcher " << d.name);
        if (d.traits.observes_program) {
            CHECK(!registry.make(d.name));
            continue;
        }
        auto launcher = registry.make(d.name);
        REQUIRE(launcher);
        CHECK(launcher->name() == d.name);
        CHECK(&launcher->traits() == &d.traits);
        if (d.traits.needs_payload) CHECK(d.traits.takes_payload);
    }
    CHECK_THROWS(registry.add("no-such-launcher", [] { return std::unique_ptr<Launcher>(); }));
}

TEST_CASE("every backend in the vocabulary is known to the backend registry",
          "[run][vocabulary]") {
    for (const auto& d : backend_descriptors()) {
        INFO("backend " << d.name);
        std::string why;
        try {
            auto backend = make_backend(d.name, nullptr);
            CHECK(backend->name() == d.name);
        } catch (const std::exception& e) {
            why = e.what();  // unavailable here (no device) is fine; unknown is not
        }
        CHECK(why.find("unknown backend") == std::string::npos);
    }
    bool listed = false;
    for (const auto& a : list_backends()) listed |= a.name == "host";
    CHECK(listed);
    std::string unknown;
    try {
        make_backend("nope", nullptr);
    } catch (const std::exception& e) {
        unknown = e.what();
    }
    CHECK(unknown.find("allowed: auto, host, cuda") != std::string::npos);
}
