// Worker::copy_once outside any launcher: numbering, and no allocation once reserved.
#include "backend/host_backend.hpp"
#include "launch/worker.hpp"
#include "support/catch.hpp"

using namespace xfer;

TEST_CASE("copy_once numbers warm-up copies negatively and never reallocates", "[worker]") {
    TransferSpec t;
    t.bytes = 4096;
    auto backend = make_host_backend();
    Worker w(5, 1, backend->prepare(t, 1), 3, 2);
    w.enter_thread("test");
    CHECK(w.thread_info().launcher == "test");
    CHECK(w.records().capacity() >= 5);
    const Record* storage = w.records().data();
    std::vector<int> reps;
    for (int i = 0; i < 5; ++i) reps.push_back(w.copy_once().repetition);
    CHECK(reps == std::vector<int>{-2, -1, 0, 1, 2});
    CHECK(w.records().data() == storage);  // the reserved storage, never moved
    CHECK(w.records()[1].warmup);
    CHECK_FALSE(w.records()[2].warmup);
    CHECK(w.records()[4].run == 5);
    CHECK(w.records()[4].worker == 1);
    CHECK(w.records()[4].bytes == 4096);
    CHECK(w.transfer().verify() == -1);

    Worker n(0, 0, backend->prepare(t, 0), 2, 0);
    n.enter_thread("test");
    n.copy_n(2);
    CHECK(n.copies_done() == 2);
    CHECK(n.records()[0].repetition == 0);
    CHECK_FALSE(n.records()[0].warmup);
}
