package dev.sharray;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/** For the array-cache tests: a cache keeping one array, which it releases once when selected; counts its calls. */
class KeptArrayCache implements ArrayCache {
    final AtomicReference<SharedArray> kept;
    final AtomicInteger toldBytes = new AtomicInteger();
    final AtomicInteger released = new AtomicInteger();

    KeptArrayCache(SharedArray kept) {
        this.kept = new AtomicReference<>(kept);
    }

    @Override
    public long keptBytes(Predicate<SharedArray> where) {
        toldBytes.incrementAndGet();
        final SharedArray a = kept.get();
        return a != null && where.test(a) ? a.byteSize() : 0;
    }

    @Override
    public long release(Predicate<SharedArray> where) {
        final SharedArray a = kept.get();
        if (a == null || !where.test(a) || !kept.compareAndSet(a, null)) {
            return 0;
        }
        released.incrementAndGet();
        beforeRelease();
        a.release();
        return a.byteSize();
    }

    /** What happens between taking the array out and releasing it (a test may hold the release up here). */
    void beforeRelease() {
    }
}
