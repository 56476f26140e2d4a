package dev.sharray;

/**
 * For {@link ArrayCachesTest}, in a mount namespace of its own with a small {@code /dev/shm}: keeps {@code args[0]}
 * MiB in a registered array cache there, then creates {@code args[1]} MiB and prints where the new array went and
 * whether the cache released its array.
 */
public final class ArrayCacheChild {
    private ArrayCacheChild() {
    }

    public static void main(String[] args) {
        final KeptArrayCache cache = new KeptArrayCache(mib(Integer.parseInt(args[0])));
        System.out.println("kept in " + cache.kept.get().path());
        SharedArrays.registerArrayCache(cache);
        try (SharedArray created = mib(Integer.parseInt(args[1]))) {
            System.out.println("created in " + created.path() + ", cache released: " + (cache.kept.get() == null));
        }
        SharedArrays.unregisterArrayCache(cache);
        final SharedArray left = cache.kept.get();
        if (left != null) {
            left.release();
        }
    }

    private static SharedArray mib(int mib) {
        return SharedArray.create(DType.FLOAT64, (long) mib << 17);
    }
}
