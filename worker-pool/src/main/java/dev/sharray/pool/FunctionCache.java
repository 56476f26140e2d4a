package dev.sharray.pool;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A small least-recently-used table of the functions of map calls in flight, keyed by map id. The
 * worker keeps the decoded functions in one; the parent keeps, per worker, one over the same ids that
 * only records which ids that worker has. Both sides apply the same operations in the same order (the
 * parent as it sends, the worker as it reads the same ring), so with one capacity and one eviction rule
 * the parent always knows whether a task must carry the function's bytes: no acknowledgement is needed,
 * and a replacement worker, with an empty table, is sent the bytes again.
 *
 * <p>Not thread-safe: the worker loop owns its table, the parent guards each with the worker's send lock.
 *
 * @param <V> what is kept per id
 */
final class FunctionCache<V> {
    /** Map calls running at once on one worker beyond this evict the least recently used function. */
    static final int CAPACITY = 8;

    private final LinkedHashMap<Integer, V> entries = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, V> eldest) {
            return size() > CAPACITY;
        }
    };

    /** @return the entry for {@code id}, now the most recently used, or null */
    V get(int id) {
        return entries.get(id);
    }

    /** Adds or replaces the entry for {@code id}, evicting the least recently used one beyond {@link #CAPACITY}. */
    void put(int id, V value) {
        entries.put(id, value);
    }

    /** @return whether {@code id} is cached, without changing the recency order */
    boolean contains(int id) {
        return entries.containsKey(id);
    }

    /** @return the removed entry, or null when {@code id} was not (or no longer) there */
    V remove(int id) {
        return entries.remove(id);
    }

    int size() {
        return entries.size();
    }
}
