package dev.sharray;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * A child JVM for {@link MapLimitTest}: takes real map entries (one anonymous region split by {@code mprotect})
 * until {@code margin} are left below {@code vm.max_map_count}, then creates arrays until one is refused. Prints
 * {@code "refused after N: <message>"}, then {@code "kept .ref mappings K"} (those kept since it opened and released
 * the array its second argument describes (hex), before: a refusal unmaps them first), {@code "open refused:
 * <message>"} for that array, {@code "files F"} (the files in its folder),
 * {@code "created after release"} once releasing some arrays let a create succeed, and {@code "healthy"} once a new
 * thread, a class and some heap were had; exits 0. A JVM that ran out of map entries dies before (HotSpot's "There is
 * insufficient memory for the Java Runtime Environment to continue").
 *
 * <p>Arguments: margin, the map entries to leave; a descriptor in hex.
 */
public final class MapLimitChild {
    private static final int PROT_NONE = 0;
    private static final int PROT_READ = 1;
    private static final int MAP_PRIVATE = 0x02;
    private static final int MAP_ANONYMOUS = 0x20;
    private static final int MAP_NORESERVE = 0x4000;
    private static final long PAGE = 4096;

    /** The two libc calls that take map entries. */
    public interface C extends Library {
        Pointer mmap(Pointer address, long length, int prot, int flags, int fd, long offset);

        int mprotect(Pointer address, long length, int prot);
    }

    private MapLimitChild() {
    }

    public static void main(String[] args) throws Exception {
        final long margin = Long.parseLong(args[0]);
        final long limit = MapEntries.LIMIT;
        final Descriptor others = Descriptor.fromBytes(java.util.HexFormat.of().parseHex(args[1]));
        SharedArray.open(others).release(); // its .ref stays mapped for the next open: the parent holds the array
        takeEntries(limit - margin);
        final List<SharedArray> held = new ArrayList<>();
        MapLimitException refused = null;
        while (refused == null && held.size() < limit) {
            try {
                held.add(SharedArray.create(DType.FLOAT64, 16));
            } catch (MapLimitException e) {
                refused = e;
            }
        }
        System.out.println("refused after " + held.size() + ": " + (refused == null ? "never" : refused.getMessage()));
        System.out.println("kept .ref mappings " + IdleReferenceFiles.size());
        try (SharedArray other = SharedArray.open(others)) {
            System.out.println("opened " + other.getDouble(1));
        } catch (MapLimitException e) {
            System.out.println("open refused: " + e.getMessage());
        }
        try (Stream<java.nio.file.Path> files = Files.list(SharedArrays.processFolder())) {
            System.out.println("files " + files.count() + " for " + held.size() + " arrays");
        }
        for (SharedArray a : held.subList(0, 100)) {
            a.release();
        }
        held.subList(0, 100).clear();
        try (SharedArray again = SharedArray.create(DType.FLOAT64, 16)) {
            again.setDouble(7, 3);
            System.out.println(again.getDouble(3) == 7 ? "created after release" : "wrong value");
        }
        // what the JVM needs map entries for: a thread (its stack), heap, classes
        final AtomicLong sum = new AtomicLong();
        final Thread t = new Thread(() -> sum.set(new java.util.concurrent.ConcurrentSkipListMap<>(
            java.util.Map.of(1, 2)).size() + new byte[64 << 20].length));
        t.start();
        t.join();
        held.forEach(SharedArray::release);
        System.out.println(sum.get() > 0 ? "healthy" : "no thread result");
    }

    /** Adds anonymous map entries until this process has {@code target}. */
    private static void takeEntries(long target) {
        final C c = Native.load(Platform.C_LIBRARY_NAME, C.class);
        final long splits = Math.max(0, (target - MapEntries.countNow()) / 2);
        final long pages = 2 * splits + 1;
        final Pointer region = c.mmap(null, pages * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (Pointer.nativeValue(region) == -1) {
            throw new IllegalStateException("mmap failed");
        }
        for (long i = 0; i < splits; i++) { // every odd page readable: each one splits the region in two more entries
            if (c.mprotect(region.share((2 * i + 1) * PAGE), PAGE, PROT_READ) != 0) {
                throw new IllegalStateException("mprotect failed after " + i);
            }
        }
        System.out.println("took entries: " + MapEntries.countNow() + " of " + target);
    }
}
