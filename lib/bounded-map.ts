// A Map used as a bounded cache, least recently used out: a Map iterates in insertion order, so
// the entry set last is the newest and the first key is the one to drop.

/** Set `key` as the most recently used entry; beyond `max` entries, the least recently used goes. */
export function setMostRecent<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) {
    const oldest = map.keys().next();
    if (oldest.done !== true) map.delete(oldest.value);
  }
}
