#include "storage/sqlite/page_cache.h"

#include <sqlite3.h>

#include <algorithm>
#include <atomic>

namespace cosmos::storage::sqlite {
namespace {

// SQLite's default cache, captured before the layer replaces it.
sqlite3_pcache_methods2 default_cache{};
std::atomic<long long> forwarded_truncations{0};
std::atomic<long long> skipped_truncations{0};

// The byte SQLite reserves for file locks sits at 1 GiB; its page is never a database page,
// which is why a balance parks pages there.
constexpr unsigned long long kPendingByte = 0x40000000ull;

struct LayeredCache {
  sqlite3_pcache* inner;
  unsigned parking_key;     // the pending byte's page for this page size
  unsigned highest_key = 0;  // no page other than a parked one has a higher key
  bool parked = false;       // a page may sit under parking_key
};

LayeredCache* Layer(sqlite3_pcache* cache) { return reinterpret_cast<LayeredCache*>(cache); }

// Every page enters the cache through a fetch or a rekey: both raise the highest key.
void NoteKey(LayeredCache* cache, unsigned key) {
  if (key == cache->parking_key) {
    cache->parked = true;
  } else {
    cache->highest_key = std::max(cache->highest_key, key);
  }
}

int Init(void*) { return default_cache.xInit(default_cache.pArg); }

void Shutdown(void*) {
  if (default_cache.xShutdown) default_cache.xShutdown(default_cache.pArg);
}

sqlite3_pcache* Create(int page_size, int extra_size, int purgeable) {
  sqlite3_pcache* inner = default_cache.xCreate(page_size, extra_size, purgeable);
  if (inner == nullptr) return nullptr;
  auto* cache = new (std::nothrow) LayeredCache{inner, static_cast<unsigned>(kPendingByte / page_size + 1)};
  if (cache == nullptr) {
    default_cache.xDestroy(inner);
    return nullptr;
  }
  return reinterpret_cast<sqlite3_pcache*>(cache);
}

void CacheSize(sqlite3_pcache* cache, int pages) { default_cache.xCachesize(Layer(cache)->inner, pages); }

int PageCount(sqlite3_pcache* cache) { return default_cache.xPagecount(Layer(cache)->inner); }

sqlite3_pcache_page* Fetch(sqlite3_pcache* cache, unsigned key, int create) {
  sqlite3_pcache_page* page = default_cache.xFetch(Layer(cache)->inner, key, create);
  if (page != nullptr) NoteKey(Layer(cache), key);
  return page;
}

void Unpin(sqlite3_pcache* cache, sqlite3_pcache_page* page, int discard) {
  default_cache.xUnpin(Layer(cache)->inner, page, discard);
}

void Rekey(sqlite3_pcache* cache, sqlite3_pcache_page* page, unsigned old_key, unsigned new_key) {
  LayeredCache* layer = Layer(cache);
  default_cache.xRekey(layer->inner, page, old_key, new_key);
  if (old_key == layer->parking_key) layer->parked = false;  // one page parks at a time
  NoteKey(layer, new_key);
}

void Truncate(sqlite3_pcache* cache, unsigned limit) {
  LayeredCache* layer = Layer(cache);
  bool parked_page_goes = layer->parked && layer->parking_key >= limit;
  if (layer->highest_key < limit && !parked_page_goes) {
    skipped_truncations.fetch_add(1, std::memory_order_relaxed);
    return;  // no page has a key at or past the limit
  }
  forwarded_truncations.fetch_add(1, std::memory_order_relaxed);
  default_cache.xTruncate(layer->inner, limit);
  if (limit > 0) layer->highest_key = std::min(layer->highest_key, limit - 1);
  if (layer->parking_key >= limit) layer->parked = false;
}

void Destroy(sqlite3_pcache* cache) {
  default_cache.xDestroy(Layer(cache)->inner);
  delete Layer(cache);
}

void Shrink(sqlite3_pcache* cache) { default_cache.xShrink(Layer(cache)->inner); }

}  // namespace

bool InstallPageCacheLayer() {
  static const bool installed = [] {
    if (sqlite3_config(SQLITE_CONFIG_GETPCACHE2, &default_cache) != SQLITE_OK) return false;
    // Version 1 of the methods: Shrink is the last member the layer forwards.
    if (default_cache.iVersion < 1 || default_cache.xCreate == nullptr) return false;
    static const sqlite3_pcache_methods2 layered{
        1, nullptr, Init, Shutdown, Create, CacheSize, PageCount, Fetch, Unpin, Rekey, Truncate, Destroy, Shrink};
    return sqlite3_config(SQLITE_CONFIG_PCACHE2, &layered) == SQLITE_OK;
  }();
  return installed;
}

PageCacheTruncations PageCacheTruncationCounts() {
  return {forwarded_truncations.load(std::memory_order_relaxed), skipped_truncations.load(std::memory_order_relaxed)};
}

}  // namespace cosmos::storage::sqlite
