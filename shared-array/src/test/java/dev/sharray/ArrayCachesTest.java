package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
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
        final AtomicReference<SharedArray> kept = new AtomicReference<>(fiveMiB());
        final Path keptPath = kept.get().path();
        final AtomicInteger asked = new AtomicInteger();
        final LongSupplier releasing = ArrayCacheChild.releasing(kept);
        final LongSupplier cache = () -> {
            asked.incrementAndGet();
            return releasing.getAsLong();
        };
        SharedArrays.registerArrayCache(cache);
        try (SharedArray mine = fiveMiB()) {
            assertEquals(1, asked.get(), "the cache was asked once");
            assertFalse(Files.exists(keptPath), "the cache's array made room");
            assertTrue(mine.path().startsWith(tmpfs.path()));
            mine.setDouble(7, 7);
        } finally {
            SharedArrays.unregisterArrayCache(cache);
        }
        assertEquals(1, asked.get(), "nothing asked a cache with room to spare");
    }

    @Test
    void whenNoCacheFreesAnythingTheCreateFailsAsBeforeAndACacheThatThrowsStopsNoOther() {
        final SharedArray held = fiveMiB();
        final AtomicInteger asked = new AtomicInteger();
        final LongSupplier keepsIt = () -> {
            asked.incrementAndGet();
            return 0;
        };
        final LongSupplier broken = () -> {
            asked.incrementAndGet();
            throw new IllegalStateException("broken cache");
        };
        SharedArrays.registerArrayCache(broken);
        SharedArrays.registerArrayCache(keepsIt);
        try {
            final InsufficientSpaceException e = assertThrows(InsufficientSpaceException.class, this::fiveMiB);
            assertTrue(e.getMessage().contains("not enough space in " + tmpfs.path()), e.getMessage());
            assertEquals(2, asked.get(), "both caches were asked, once");
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
     * Two threads short of room at once: the first emptied the caches, the second's release found nothing left and
     * threw, though the first had made room for both (diff review 48: 87 of 400 paired creates). The second now waits
     * for the first's release and looks again. 8 MiB: 6 MiB kept, then 3 MiB for each thread.
     */
    @Test
    void aSecondThreadShortOfRoomFindsTheRoomTheFirstOnesReleaseMade() throws Exception {
        final AtomicReference<SharedArray> kept = new AtomicReference<>(
            SharedArray.builder(DType.FLOAT64, 6L << 17).folder(tmpfs.path()).create());
        final java.util.concurrent.CountDownLatch releasing = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.CountDownLatch mayRelease = new java.util.concurrent.CountDownLatch(1);
        final LongSupplier cache = () -> {
            final SharedArray a = kept.getAndSet(null);
            if (a == null) {
                return 0;
            }
            releasing.countDown();
            try {
                mayRelease.await(); // while the second thread fails its look at the room
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            a.release();
            return a.byteSize();
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
        final Path privateTmp = Files.createDirectories(Path.of(System.getProperty("sharray.tempFolder"), "tmp"));
        final List<String> inNamespace = List.of("unshare", "--mount", "--fork",
            "sh", "-c", "mount -t tmpfs -o size=120m none /dev/shm && exec \"$@\"", "sh");
        try (ChildJvm child = ChildJvm.startWrapped(inNamespace, ArrayCacheChild.class,
                List.of("-Dsharray.tempFolder=", "-Djava.io.tmpdir=" + privateTmp), "40", "30")) {
            assertTrue(child.readLine().startsWith("kept in /dev/shm/"), "the child's premise: a private /dev/shm");
            final String created = child.readLine();
            assertTrue(created.startsWith("created in /dev/shm/") && created.endsWith("cache released: true"), created);
            assertEquals(0, child.finish(), "the child exits normally (unshare needs root; CI runs as root)");
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
