package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Arrays a process keeps only for reuse (a pool's copies of heap arguments) held the room of their folder: a user's
 * own create there then failed for want of space, or left {@code /dev/shm} for disk, without a word of why. A
 * registered cache is now asked to release what it keeps first. Needs root for the small tmpfs mounts (CI runs as
 * root): the tests fail, not skip, without it.
 */
@ExtendWith(PrivateRoot.class)
class ArrayCachesTest {
    @RegisterExtension
    final SmallTmpfs tmpfs = new SmallTmpfs("size=8m");

    @Test
    void aCreateShortOfRoomHasTheCachesReleaseTheirArraysFirst() {
        final KeptArrayCache cache = new KeptArrayCache(fiveMiB());
        final Path keptPath = cache.kept.get().path();
        SharedArrays.registerArrayCache(cache);
        try (SharedArray mine = fiveMiB()) {
            assertEquals(1, cache.released.get(), "the cache released its array, once");
            assertFalse(Files.exists(keptPath), "the cache's array made room");
            assertTrue(mine.path().startsWith(tmpfs.path()));
            mine.setDouble(7, 7);
        } finally {
            SharedArrays.unregisterArrayCache(cache);
        }
        assertEquals(1, cache.toldBytes.get(), "nothing asked a cache with room to spare");
    }

    @Test
    void whenNoCacheFreesAnythingTheCreateFailsAsBeforeAndACacheThatThrowsStopsNoOther() {
        final SharedArray held = fiveMiB();
        final AtomicInteger asked = new AtomicInteger();
        final ArrayCache keepsIt = new ArrayCache() {
            @Override
            public long keptBytes(Predicate<SharedArray> where) {
                asked.incrementAndGet();
                return 8L << 20;
            }

            @Override
            public long release(Predicate<SharedArray> where) {
                asked.incrementAndGet();
                return 0;
            }
        };
        final ArrayCache broken = new ArrayCache() {
            @Override
            public long keptBytes(Predicate<SharedArray> where) {
                asked.incrementAndGet();
                throw new IllegalStateException("broken cache");
            }

            @Override
            public long release(Predicate<SharedArray> where) {
                asked.incrementAndGet();
                throw new IllegalStateException("broken cache");
            }
        };
        SharedArrays.registerArrayCache(broken);
        SharedArrays.registerArrayCache(keepsIt);
        try {
            final InsufficientSpaceException e = assertThrows(InsufficientSpaceException.class, this::fiveMiB);
            assertTrue(e.getMessage().contains("not enough space in " + tmpfs.path()), e.getMessage());
            assertEquals(4, asked.get(), "both caches were asked what they keep, then to release it, once");
            assertTrue(Files.exists(held.path()));
        } finally {
            SharedArrays.unregisterArrayCache(broken);
            SharedArrays.unregisterArrayCache(keepsIt);
            held.release();
        }
        try (Stream<Path> files = list(tmpfs.path())) {
            assertEquals(0, files.filter(Files::isRegularFile).count(), "a file was left");
        }
    }

    /**
     * A cache whose arrays are on another file system cannot make the room: it kept them all the same only when it
     * was not asked; every create short of room emptied every cache (diff review 48, F2). Now it keeps them, and the
     * create fails as it would have anyway.
     */
    @Test
    void aCacheWhoseArraysAreOnAnotherFileSystemKeepsThem() {
        final Path elsewhere = Path.of(System.getProperty("sharray.tempFolder"));
        final KeptArrayCache cache = new KeptArrayCache(
            SharedArray.builder(DType.FLOAT64, 5L << 17).folder(elsewhere).create());
        final SharedArray held = fiveMiB();
        SharedArrays.registerArrayCache(cache);
        try {
            assertThrows(InsufficientSpaceException.class, this::fiveMiB);
            assertEquals(1, cache.toldBytes.get(), "the cache was asked what it keeps there");
            assertEquals(0, cache.released.get(), "and kept its array, whose room is elsewhere");
            assertTrue(Files.exists(cache.kept.get().path()));
        } finally {
            SharedArrays.unregisterArrayCache(cache);
            held.release();
            cache.release(a -> true);
        }
    }

    /** Nor does a cache release arrays whose room, with what is free, is still too little for the new array. */
    @Test
    void aCacheWhoseArraysCannotMakeEnoughRoomKeepsThem() {
        final KeptArrayCache cache = new KeptArrayCache(
            SharedArray.builder(DType.FLOAT64, 1L << 17).folder(tmpfs.path()).create());
        final SharedArray held = fiveMiB();
        SharedArrays.registerArrayCache(cache);
        try {
            // 8 MiB: 1 MiB kept and 5 MiB held leave 2 MiB; 1 + 2 are too little for 5
            final InsufficientSpaceException e = assertThrows(InsufficientSpaceException.class, this::fiveMiB);
            assertEquals(0, cache.released.get(), "the cache kept its array: " + e.getMessage());
            assertTrue(Files.exists(cache.kept.get().path()));
            try (SharedArray fits = SharedArray.builder(DType.FLOAT64, 2L << 17).folder(tmpfs.path()).create()) {
                // 1 + 2 are enough for 2: now it gives way
                assertEquals(1, cache.released.get());
                assertTrue(fits.path().startsWith(tmpfs.path()));
            }
        } finally {
            SharedArrays.unregisterArrayCache(cache);
            held.release();
            cache.release(a -> true);
        }
    }

    /**
     * Two threads short of room at once: the first emptied the caches, the second's release found nothing left and
     * threw, though the first had made room for both (diff review 48: 87 of 400 paired creates). The second now waits
     * for the first's release and looks again. 8 MiB: 6 MiB kept, then 3 MiB for each thread.
     */
    @Test
    void aSecondThreadShortOfRoomFindsTheRoomTheFirstOnesReleaseMade() throws Exception {
        final java.util.concurrent.CountDownLatch releasing = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.CountDownLatch mayRelease = new java.util.concurrent.CountDownLatch(1);
        final KeptArrayCache cache = new KeptArrayCache(
                SharedArray.builder(DType.FLOAT64, 6L << 17).folder(tmpfs.path()).create()) {
            @Override
            void beforeRelease() {
                releasing.countDown();
                try {
                    mayRelease.await(); // while the second thread fails its look at the room
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        SharedArrays.registerArrayCache(cache);
        final java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            final java.util.concurrent.Future<SharedArray> first = threads.submit(this::threeMiB);
            assertTrue(releasing.await(30, java.util.concurrent.TimeUnit.SECONDS), "the first thread released");
            final Thread[] second = new Thread[1];
            final java.util.concurrent.Future<SharedArray> other = threads.submit(() -> {
                second[0] = Thread.currentThread();
                return threeMiB();
            });
            for (int i = 0; i < 3000 && (second[0] == null || second[0].getState() != Thread.State.BLOCKED); i++) {
                Thread.sleep(10); // the second found too little room, and waits for the release under way
            }
            mayRelease.countDown();
            try (SharedArray a = first.get(30, java.util.concurrent.TimeUnit.SECONDS);
                 SharedArray b = other.get(30, java.util.concurrent.TimeUnit.SECONDS)) {
                assertTrue(a.path().startsWith(tmpfs.path()) && b.path().startsWith(tmpfs.path()));
            }
        } finally {
            mayRelease.countDown();
            threads.shutdownNow();
            SharedArrays.unregisterArrayCache(cache);
        }
    }

    /**
     * With no folder named, a /dev/shm short of room only because of a cache's array sent the new array to
     * java.io.tmpdir (disk). A child JVM in a mount namespace of its own, with a 120 MiB /dev/shm: 40 MiB kept leaves
     * 16 MiB beyond the 64 MiB headroom, too little for 30 MiB, unless the cache lets go.
     */
    @Test
    void aCachesArrayDoesNotPushANewOneOutOfDevShm() throws Exception {
        assertEquals("created in /dev/shm/", createdInChildWithSmallDevShm(40, 30));
    }

    /** An array too big for that /dev/shm even without the cache's 20 MiB goes to disk, the cache keeping them. */
    @Test
    void anArrayTooBigForDevShmAnywayLeavesTheCacheItsArray() throws Exception {
        assertEquals("created in " + System.getProperty("sharray.tempFolder") + "/tmp/",
            createdInChildWithSmallDevShm(20, 80));
    }

    /**
     * The same with less than the 64 MiB headroom free (51 MiB more of /dev/shm held): the room came out negative,
     * was taken for "unknown", and the cache released its array all the same (diff review 49, F2).
     */
    @Test
    void aDevShmWithinItsHeadroomLeavesTheCacheItsArrayToo() throws Exception {
        assertEquals("created in " + System.getProperty("sharray.tempFolder") + "/tmp/",
            createdInChildWithSmallDevShm(20, 80, 51));
    }

    /** @return where the child's new array went, up to its owner folder; asserts the cache released only for /dev/shm */
    private static String createdInChildWithSmallDevShm(int keptMib, int newMib, int... heldMib) throws Exception {
        final Path privateTmp = Files.createDirectories(Path.of(System.getProperty("sharray.tempFolder"), "tmp"));
        final List<String> inNamespace = List.of("unshare", "--mount", "--fork",
            "sh", "-c", "mount -t tmpfs -o size=120m none /dev/shm && unset SHARRAY_TEMP_FOLDER && exec \"$@\"", "sh");
        try (ChildJvm child = ChildJvm.startWrapped(inNamespace, ArrayCacheChild.class,
                List.of("-Dsharray.tempFolder=", "-Djava.io.tmpdir=" + privateTmp), "" + keptMib, "" + newMib,
                "" + (heldMib.length > 0 ? heldMib[0] : 0))) {
            assertTrue(child.readLine().startsWith("kept in /dev/shm/"), "the child's premise: a private /dev/shm");
            final String created = child.readLine();
            final boolean inDevShm = created.startsWith("created in /dev/shm/");
            assertTrue(created.endsWith("cache released: " + inDevShm), created);
            assertEquals(0, child.finish(), "the child exits normally (unshare needs root; CI runs as root)");
            return inDevShm ? "created in /dev/shm/" : created.substring(0, created.indexOf("/sharray-root/") + 1);
        }
    }

    private SharedArray threeMiB() {
        return SharedArray.builder(DType.FLOAT64, 3L << 17).folder(tmpfs.path()).create();
    }

    private SharedArray fiveMiB() {
        return SharedArray.builder(DType.FLOAT64, 5L << 17).folder(tmpfs.path()).create();
    }

    private static Stream<Path> list(Path dir) {
        try {
            return Files.walk(dir);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
