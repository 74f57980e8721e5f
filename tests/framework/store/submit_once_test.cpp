// Issue 49: exactly-once `dede submit` (idempotency keys, schema 7), unknown deployments and
// non-finite --after refused, and the inbox's per-round cap as the store serves it.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "store/migrations.h"
#include "store/sqlite.h"
#include "store/store.h"
#include "submit.h"

namespace dede::internal {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "dede_submit_once_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

std::string Scalar(Store& store, const std::string& sql) {
  auto result = store.Query(sql);
  if (!result.ok()) return "<error: " + result.status().ToString() + ">";
  if (result->rows.empty()) return "<no rows>";
  return result->rows[0][0].value_or("NULL");
}

EventRow Keyed(const std::string& key, const std::string& kind, const std::string& payload) {
  EventRow e;
  e.deployment = "alpha";
  e.kind = kind;
  e.target = "3->7";
  e.payload = payload;
  e.idempotency_key = key;
  return e;
}

TEST(SubmitOnce, SameKeyAndContentIsANoOpReturningTheStoredEvent) {
  auto opened = Store::Open(":memory:");
  ASSERT_TRUE(opened.ok());
  Store& store = *opened.value();
  auto first = store.SubmitEventsOnce({Keyed("k1", "fail", "{\"a\": 1}")});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_FALSE(first->front().existing);
  // A retry (the first submit was killed after its commit): the same event, not a duplicate;
  // the payload's spelling does not matter, its JSON does.
  auto again = store.SubmitEventsOnce({Keyed("k1", "fail", "{\"a\":1}")});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->front().existing);
  EXPECT_EQ(again->front().id, first->front().id);
  EXPECT_EQ(again->front().status, "pending");
  EXPECT_EQ(Scalar(store, "SELECT count(*) FROM events"), "1");
  EXPECT_EQ(Scalar(store, "SELECT idempotency_key FROM events"), "k1");
  // Once applied, a retry reports the round that used it.
  ASSERT_TRUE(store.Query("UPDATE events SET status = 'applied', round = 4").ok());
  again = store.SubmitEventsOnce({Keyed("k1", "fail", "{\"a\": 1}")});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->front().status, "applied");
  EXPECT_EQ(again->front().round, 4);
  // Keys are per deployment; events without a key are never deduplicated.
  EventRow other = Keyed("k1", "fail", "{\"a\": 1}");
  other.deployment = "beta";
  EXPECT_FALSE(store.SubmitEventsOnce({other})->front().existing);
  EventRow plain = Keyed("", "fail", "{}");
  ASSERT_TRUE(store.SubmitEvents({plain, plain}).ok());
  EXPECT_EQ(Scalar(store, "SELECT count(*) FROM events"), "4");
}

TEST(SubmitOnce, SameKeyWithOtherContentIsAnErrorNamingBothAndWritesNothing) {
  auto opened = Store::Open(":memory:");
  ASSERT_TRUE(opened.ok());
  Store& store = *opened.value();
  ASSERT_TRUE(store.SubmitEventsOnce({Keyed("k1", "fail", "{\"a\": 1}")}).ok());
  for (EventRow changed :
       {Keyed("k1", "recover", "{\"a\": 1}"), Keyed("k1", "fail", "{\"a\": 2}")}) {
    // In a batch with a new event: the batch is all or nothing.
    auto result = store.SubmitEventsOnce({Keyed("k2", "fail", "{}"), changed});
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), StatusCode::kAlreadyExists);
    const std::string& message = result.status().message();
    for (const std::string& part :
         std::vector<std::string>{"event 1: idempotency key 'k1' of deployment 'alpha' is event 1",
                                  "kind 'fail', target '3->7', payload {\"a\":1}",
                                  "this submit has kind '" + changed.kind,
                                  "nothing was written"}) {
      EXPECT_NE(message.find(part), std::string::npos) << part << " in: " << message;
    }
  }
  {  // apply_after is content too
    EventRow later = Keyed("k1", "fail", "{\"a\": 1}");
    later.apply_after = 2e9;
    auto result = store.SubmitEventsOnce({later});
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.status().message().find("apply_after 2e+09"), std::string::npos)
        << result.status().message();
  }
  EXPECT_EQ(Scalar(store, "SELECT count(*) FROM events"), "1");
}

TEST(SubmitOnce, MigratesAVersionSixDatabaseKeepingItsEvents) {
  TempDir dir;
  const std::string path = dir.File("v6.db");
  {
    auto db = sqlite::Database::Open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    ASSERT_TRUE(db.ok());
    for (const Migration& migration : Migrations()) {
      if (migration.version > 6) break;
      ASSERT_TRUE(db.value()->Exec(migration.sql, migration.name).ok()) << migration.name;
    }
    ASSERT_TRUE(db.value()
                    ->Exec("PRAGMA user_version = 6; INSERT INTO events (deployment, kind) "
                           "VALUES ('alpha', 'fail'), ('alpha', 'fail')",
                           "v6 events")
                    .ok());
  }
  auto opened = Store::Open(path);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Store& store = *opened.value();
  EXPECT_EQ(store.schema_version(), Store::LatestSchemaVersion());
  EXPECT_GE(Store::LatestSchemaVersion(), 7);
  EXPECT_EQ(Scalar(store, "SELECT count(*) FROM events WHERE idempotency_key IS NULL"), "2");
  ASSERT_TRUE(store.SubmitEventsOnce({Keyed("k", "fail", "{}")}).ok());
  // The unique index holds for any writer, not only dede submit.
  auto raw = store.Query(
      "INSERT INTO events (deployment, kind, idempotency_key) VALUES ('alpha', 'x', 'k')");
  EXPECT_FALSE(raw.ok());
  EXPECT_FALSE(store
                   .Query("INSERT INTO events (deployment, kind, idempotency_key) VALUES "
                          "('alpha', 'x', '')")
                   .ok());
  auto pending = store.PendingEvents("alpha", 0, 1e10);
  ASSERT_TRUE(pending.ok());
  ASSERT_EQ(pending->size(), 3u);
  EXPECT_EQ(pending->back().idempotency_key, "k");
}

TEST(InboxCap, PendingEventsTakesTheOldestAndCountsTheBacklog) {
  auto opened = Store::Open(":memory:");
  ASSERT_TRUE(opened.ok());
  Store& store = *opened.value();
  std::vector<EventRow> events;
  for (int k = 0; k < 7; ++k) events.push_back(Keyed("", "fail", "{}"));
  events[2].apply_from_round = 5;  // not due at round 0
  ASSERT_TRUE(store.SubmitEvents(events).ok());
  auto capped = store.PendingEvents("alpha", 0, 1e10, 3);
  ASSERT_TRUE(capped.ok());
  ASSERT_EQ(capped->size(), 3u);
  EXPECT_EQ(capped->at(0).id, 1);
  EXPECT_EQ(capped->at(1).id, 2);
  EXPECT_EQ(capped->at(2).id, 4);
  EXPECT_EQ(store.PendingEvents("alpha", 0, 1e10)->size(), 6u);  // 0: no cap
  EXPECT_EQ(store.CountPendingEvents("alpha", 0, 1e10).value(), 6);
  EXPECT_EQ(store.CountPendingEvents("alpha", 5, 1e10).value(), 7);
  EXPECT_EQ(store.CountPendingEvents("beta", 5, 1e10).value(), 0);
}

// ---- dede submit --------------------------------------------------------------------------

class SubmitCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.File("deploy.db");
    auto store = Store::Open(path_);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE(store.value()->UpsertDeployment({"alpha", "toy", "1", "a.yaml", "x: 1"}).ok());
    ASSERT_TRUE(store.value()->UpsertDeployment({"beta", "toy", "1", "b.yaml", "x: 1"}).ok());
  }
  tools::SubmitRequest Request() const {
    tools::SubmitRequest request;
    request.db_path = path_;
    request.deployment = "alpha";
    request.kind = "fail";
    request.target = "3->7";
    return request;
  }
  Status Run(const tools::SubmitRequest& request, std::string* out) {
    std::ostringstream text;
    Status status = tools::Submit(request, text);
    *out = text.str();
    return status;
  }
  std::string Count() {
    auto store = Store::Open(path_, /*read_only=*/true);
    return store.ok() ? Scalar(*store.value(), "SELECT count(*) FROM events") : "<error>";
  }

  TempDir dir_;
  std::string path_;
};

TEST_F(SubmitCommand, RetryWithTheSameIdSaysSoAndAddsNothing) {
  tools::SubmitRequest request = Request();
  request.id = "retry-1";
  std::string out;
  ASSERT_TRUE(Run(request, &out).ok());
  EXPECT_EQ(out, "event 1  alpha  fail  3->7\n");
  ASSERT_TRUE(Run(request, &out).ok());
  EXPECT_EQ(out,
            "event 1  alpha  fail  3->7  already submitted with id 'retry-1' (pending); nothing "
            "written\n");
  EXPECT_EQ(Count(), "1");
  request.json = "{\"x\": 1}";
  const Status changed = Run(request, &out);
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.message().find("idempotency key 'retry-1' of deployment 'alpha' is event 1"),
            std::string::npos)
      << changed.message();
  EXPECT_EQ(Count(), "1");
  // A file's rows carry their own keys; --id with --file is refused.
  const std::string csv = dir_.File("events.csv");
  std::ofstream(csv) << "kind,target,id\nfail,1,f-1\nfail,2,f-2\nfail,1,f-1\n";
  tools::SubmitRequest file = Request();
  file.kind.clear();
  file.file = csv;
  ASSERT_TRUE(Run(file, &out).ok()) << out;
  EXPECT_EQ(Count(), "3");
  EXPECT_NE(out.find("event 2  alpha  fail  1  already submitted with id 'f-1'"), std::string::npos)
      << out;
  file.id = "one";
  const Status both = Run(file, &out);
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.message().find("--id names one event"), std::string::npos);
}

TEST_F(SubmitCommand, UnknownDeploymentIsRefusedListingTheKnownOnes) {
  tools::SubmitRequest request = Request();
  request.deployment = "alpah";
  std::string out;
  Status status = Run(request, &out);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("deployment 'alpah' is not in " + path_ +
                                  " (deployments: alpha, beta)"),
            std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("--allow-unknown-deployment"), std::string::npos);
  EXPECT_EQ(Count(), "0");
  // A deployment that has not run yet, on purpose.
  request.allow_unknown_deployment = true;
  ASSERT_TRUE(Run(request, &out).ok());
  EXPECT_EQ(Count(), "1");
  // A file row naming an unknown deployment: refused naming the file and row.
  const std::string json = dir_.File("events.json");
  std::ofstream(json) << R"([{"kind": "fail"}, {"kind": "fail", "deployment": "gamma"}])";
  tools::SubmitRequest file = Request();
  file.kind.clear();
  file.file = json;
  status = Run(file, &out);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find(json + ": event 1: deployment 'gamma' is not in"),
            std::string::npos)
      << status.message();
  EXPECT_EQ(Count(), "1");
}

TEST_F(SubmitCommand, DatabaseWithoutDeploymentsSaysNoneHasStarted) {
  const std::string empty = dir_.File("empty.db");
  ASSERT_TRUE(Store::Open(empty).ok());
  tools::SubmitRequest request = Request();
  request.db_path = empty;
  std::string out;
  Status status = Run(request, &out);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("(deployments: none: no `dede run` has started one yet)"),
            std::string::npos)
      << status.message();
  request.deployment.clear();
  status = Run(request, &out);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("holds 0 deployments"), std::string::npos) << status.message();
}

TEST_F(SubmitCommand, AfterMustBeFinite) {
  tools::SubmitRequest request = Request();
  request.apply_after_given = true;
  std::string out;
  for (const double after : {std::nan(""), HUGE_VAL, -HUGE_VAL}) {
    request.apply_after = after;
    const Status status = Run(request, &out);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.message().find("--after = "), std::string::npos) << status.message();
    EXPECT_NE(status.message().find(": expected a finite Unix time in seconds"), std::string::npos)
        << status.message();
  }
  EXPECT_EQ(Count(), "0");
  request.apply_after = 1.7e9;
  ASSERT_TRUE(Run(request, &out).ok());
  auto store = Store::Open(path_, true);
  EXPECT_EQ(Scalar(*store.value(), "SELECT apply_after FROM events"), "1.7e+09");
  // Without --after the event is due at once.
  request.apply_after_given = false;
  request.apply_after = std::nan("");
  ASSERT_TRUE(Run(request, &out).ok());
  EXPECT_EQ(Scalar(*store.value(), "SELECT count(*) FROM events WHERE apply_after IS NULL"), "1");
}

}  // namespace
}  // namespace dede::internal
