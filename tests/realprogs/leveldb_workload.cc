// LevelDB + snappy workload for gmonlens's real-program tier (C++): a database in a directory of
// its own, written in batches, partly deleted, read, iterated both ways, compacted; then snappy alone.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "leveldb/cache.h"
#include "leveldb/db.h"
#include "leveldb/filter_policy.h"
#include "leveldb/value_sink.h"
#include "leveldb/write_batch.h"
#include "snappy.h"

static std::string key_of(unsigned i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "key%012u", i);
  return buf;
}

static std::string value_of(unsigned i, unsigned len) {
  std::string v;
  while (v.size() < len) v += "value-" + std::to_string(i * 2654435761u % 100000) + "-";
  v.resize(len);
  return v;
}

static void check(const leveldb::Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "leveldb: %s\n", s.ToString().c_str());
    std::exit(1);
  }
}

int main(int argc, char** argv) {
  unsigned scale = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 1;
  unsigned n = 60000 * scale;
  std::string dir = argc > 2 ? argv[2] : "ldb-work";
  leveldb::Options opt;
  opt.create_if_missing = true;
  opt.write_buffer_size = 256 * 1024;
  opt.block_cache = leveldb::NewLRUCache(1 << 20);
  opt.filter_policy = leveldb::NewBloomFilterPolicy(10);
  leveldb::DestroyDB(dir, opt);
  leveldb::DB* db = nullptr;
  check(leveldb::DB::Open(opt, dir, &db));
  leveldb::WriteOptions wo;
  for (unsigned i = 0; i < n; i += 100) {
    leveldb::WriteBatch batch;
    for (unsigned j = i; j < i + 100 && j < n; j++) {
      unsigned k = j * 7919u % n;
      batch.Put(key_of(k), value_of(k, 100 + k % 200));
    }
    check(db->Write(wo, &batch));
  }
  for (unsigned i = 0; i < n / 10; i++) check(db->Delete(wo, key_of(i * 13u % n)));
  leveldb::ReadOptions ro;
  std::string value;
  leveldb::StringValueSink sink(&value);
  unsigned found = 0;
  for (unsigned i = 0; i < n; i++) {
    leveldb::Status s = db->Get(ro, key_of(i * 104729u % (n + n / 4)), &sink);
    if (s.ok()) found++;
  }
  size_t total = 0;
  for (int round = 0; round < 3; round++) {
    leveldb::Iterator* it = db->NewIterator(ro);
    for (it->SeekToFirst(); it->Valid(); it->Next()) total += it->value().size();
    for (it->SeekToLast(); it->Valid(); it->Prev()) total += it->key().size();
    check(it->status());
    delete it;
  }
  db->CompactRange(nullptr, nullptr);
  std::string stats;
  db->GetProperty("leveldb.stats", &stats);
  delete db;
  leveldb::DestroyDB(dir, opt);
  delete opt.block_cache;
  delete opt.filter_policy;

  std::string text;
  for (unsigned i = 0; i < 20000 * scale; i++) text += key_of(i % 5000) + value_of(i, 40);
  size_t packed = 0;
  for (int round = 0; round < 10; round++) {
    std::string comp, back;
    snappy::Compress(text.data(), text.size(), &comp);
    if (!snappy::Uncompress(comp.data(), comp.size(), &back) || back != text) return 1;
    packed += comp.size();
  }
  std::printf("found %u, bytes %zu, packed %zu\n", found, total, packed);
  return 0;
}
