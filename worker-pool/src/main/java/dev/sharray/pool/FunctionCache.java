package dev.sharray.pool;

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

    // a handful of entries: linear search over primitive ids, so a lookup on the task path allocates nothing
    private final int[] ids = new int[CAPACITY];
    private final Object[] values = new Object[CAPACITY];
    private final long[] lastUse = new long[CAPACITY];
    private int size;
    private long clock;

    private int indexOf(int id) {
        for (int i = 0; i < size; i++) {
            if (ids[i] == id) {
                return i;
            }
        }
        return -1;
    }

    /** @return the entry for {@code id}, now the most recently used, or null */
    @SuppressWarnings("unchecked")
    V get(int id) {
        int i = indexOf(id);
        if (i < 0) {
            return null;
        }
        lastUse[i] = ++clock;
        return (V) values[i];
    }

    /** Adds or replaces the entry for {@code id}, evicting the least recently used one beyond {@link #CAPACITY}. */
    void put(int id, V value) {
        int i = indexOf(id);
        if (i < 0) {
            if (size < CAPACITY) {
                i = size++;
            } else {
                i = 0;
                for (int j = 1; j < size; j++) {
                    if (lastUse[j] < lastUse[i]) {
                        i = j;
                    }
                }
            }
            ids[i] = id;
        }
        values[i] = value;
        lastUse[i] = ++clock;
    }

    /** @return whether {@code id} is cached, without changing the recency order */
    boolean contains(int id) {
        return indexOf(id) >= 0;
    }

    /** @return the removed entry, or null when {@code id} was not (or no longer) there */
    @SuppressWarnings("unchecked")
    V remove(int id) {
        int i = indexOf(id);
        if (i < 0) {
            return null;
        }
        V v = (V) values[i];
        size--;
        ids[i] = ids[size];
        values[i] = values[size];
        lastUse[i] = lastUse[size];
        values[size] = null;
        return v;
    }

    int size() {
        return size;
    }
}
