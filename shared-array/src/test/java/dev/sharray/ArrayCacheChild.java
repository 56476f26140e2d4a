package dev.sharray;

/**
 * For {@link ArrayCachesTest}, in a mount namespace of its own with a small {@code /dev/shm}: keeps {@code args[0]}
 * MiB in a registered array cache there, holds {@code args[2]} MiB more (when given, and not 0), then creates
 * {@code args[1]} MiB and prints where the new array went and whether the cache released its array.
 */
public final class ArrayCacheChild {
    private ArrayCacheChild() {
    }

    public static void main(String[] args) {
        final KeptArrayCache cache = new KeptArrayCache(mib(Integer.parseInt(args[0])));
        System.out.println("kept in " + cache.kept.get().path());
        final int held = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        final SharedArray taken = held == 0 ? null
            : SharedArray.builder(DType.FLOAT64, (long) held << 17).folder(java.nio.file.Path.of("/dev/shm")).create();
        SharedArrays.registerArrayCache(cache);
        try (SharedArray created = mib(Integer.parseInt(args[1]))) {
            System.out.println("created in " + created.path() + ", cache released: " + (cache.kept.get() == null));
        }
        SharedArrays.unregisterArrayCache(cache);
        if (taken != null) {
            taken.release();
        }
        final SharedArray left = cache.kept.get();
        if (left != null) {
            left.release();
        }
    }

    private static SharedArray mib(int mib) {
        return SharedArray.create(DType.FLOAT64, (long) mib << 17);
    }
}
