package dev.sharray;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * For {@link ArrayCachesTest}, in a mount namespace of its own with a small {@code /dev/shm}: keeps {@code args[0]}
 * MiB in a registered array cache there, then creates {@code args[1]} MiB and prints where the new array went and
 * whether the cache was asked to release its array.
 */
public final class ArrayCacheChild {
    private ArrayCacheChild() {
    }

    public static void main(String[] args) {
        final AtomicReference<SharedArray> kept = new AtomicReference<>(mib(Integer.parseInt(args[0])));
        System.out.println("kept in " + kept.get().path());
        final LongSupplier cache = releasing(kept);
        SharedArrays.registerArrayCache(cache);
        try (SharedArray created = mib(Integer.parseInt(args[1]))) {
            System.out.println("created in " + created.path() + ", cache released: " + (kept.get() == null));
        }
        SharedArrays.unregisterArrayCache(cache);
    }

    /** @return a cache keeping {@code kept}: its release releases the array and says its bytes, once */
    static LongSupplier releasing(AtomicReference<SharedArray> kept) {
        return () -> {
            final SharedArray a = kept.getAndSet(null);
            if (a == null) {
                return 0;
            }
            a.release();
            return a.byteSize();
        };
    }

    private static SharedArray mib(int mib) {
        return SharedArray.create(DType.FLOAT64, (long) mib << 17);
    }
}
