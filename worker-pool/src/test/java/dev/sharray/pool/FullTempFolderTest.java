package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.SmallTmpfs;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A pool's temp folder that fills up (a tmpfs, with arrays). The workers' ring files were sparse: {@code map} grew
 * them without allocating a page, and the pages were allocated one at a time as messages went round the rings. On a
 * full tmpfs the next new page faulted (SIGBUS): the pool's start, or a later submit, threw {@code InternalError}, the
 * worker died of it, and closing the pool then hung. Now a ring file is written whole before it is mapped: a full
 * folder refuses the start with an exception that says so, and a started pool's rings never fault. Needs root for the
 * small tmpfs (CI runs as root): it fails, not skips, without it.
 */
class FullTempFolderTest {
    @RegisterExtension
    final SmallTmpfs tmpfs = new SmallTmpfs("size=8m");

    @Test
    void aPoolInAFullFolderFailsToStartSayingSoAndLeavesNoRingFile() throws Exception {
        fill(tmpfs.path());
        final UncheckedIOException e = assertThrows(UncheckedIOException.class,
            () -> ProcessPool.builder().workers(1).tempFolder(tmpfs.path()).build().close());
        assertTrue(String.valueOf(e.getCause()).contains("No space left on device"), String.valueOf(e.getCause()));
        // which folder: by default one the user never named
        assertTrue(e.getCause().getMessage().contains("cannot write its ring file " + tmpfs.path()), e.getCause().getMessage());
        try (Stream<Path> files = Files.walk(tmpfs.path())) {
            assertEquals(0, files.filter(p -> p.toString().endsWith(".ring")).count(), "a ring file was left");
        }
    }

    /** Room for the ring file but not the argument file: the message named neither file nor folder. */
    @Test
    void anArgumentFileThatCannotBeWrittenIsNamed() throws Exception {
        final long page = 4096;
        final long ringPages = (RingFile.fileSize(1 << 20) + page - 1) / page;
        try (FileOutputStream out = new FileOutputStream(tmpfs.path().resolve("filler").toFile())) {
            final long fill = Files.getFileStore(tmpfs.path()).getUsableSpace() - ringPages * page;
            final byte[] block = new byte[4096];
            for (long written = 0; written < fill; written += block.length) {
                out.write(block);
            }
        }
        final UncheckedIOException e = assertThrows(UncheckedIOException.class,
            () -> ProcessPool.builder().workers(1).tempFolder(tmpfs.path()).build().close());
        assertTrue(e.getCause().getMessage().contains("cannot write its argument file " + tmpfs.path())
            && e.getCause().getMessage().contains("No space left on device"), e.getCause().getMessage());
        try (Stream<Path> files = Files.walk(tmpfs.path())) {
            assertEquals(0, files.filter(p -> p.toString().endsWith(".ring") || p.toString().endsWith(".args")).count(),
                "a ring or argument file was left");
        }
    }

    /**
     * A heap argument above maxBytes is copied into the pool's folder: with no room there, the advice was the one for
     * the user's own arrays (SharedArray.builder(...).folder, SHARRAY_TEMP_FOLDER, which a pool built with a temp
     * folder does not even read).
     */
    @Test
    void aHeapArgumentWithoutRoomInThePoolsFolderNamesThePoolsSetting() throws Exception {
        try (ProcessPool pool = ProcessPool.builder().workers(1).tempFolder(tmpfs.path()).build()) {
            final double[] big = new double[1 << 20]; // 8 MiB, beside the rings in 8 MiB
            final Exception e = assertThrows(Exception.class, () -> pool.submit((double[] a) -> a.length, big).get());
            final Throwable cause = e instanceof java.util.concurrent.ExecutionException ? e.getCause() : e;
            assertTrue(cause instanceof dev.sharray.InsufficientSpaceException, String.valueOf(cause));
            assertTrue(cause.getMessage().contains("ProcessPool.Builder.tempFolder")
                && !cause.getMessage().contains("SHARRAY_TEMP_FOLDER"), cause.getMessage());
            assertEquals(7, pool.submit((double[] a) -> a.length, new double[7]).get(30, TimeUnit.SECONDS));
        }
    }

    /**
     * The pool keeps its copy of a heap argument for the next call: in a folder the user shares with the pool, the
     * copy took the room of the user's own next array, whose create then failed without saying why. It now has the
     * pool's cache let go first. 8 MiB: the worker's rings, then 3 MiB kept, then the user's 3 MiB.
     */
    @Test
    void thePoolsKeptCopyGivesWayToTheUsersOwnArray() throws Exception {
        try (ProcessPool pool = ProcessPool.builder().workers(1).tempFolder(tmpfs.path()).build()) {
            final double[] arg = new double[3 << 17];
            arg[5] = 5;
            assertEquals(5.0, pool.submit((double[] a) -> a[5], arg).get(30, TimeUnit.SECONDS));
            assertEquals(1, npyFiles(tmpfs.path()), "the pool keeps its copy for the next call");
            try (SharedArray mine = SharedArray.builder(DType.FLOAT64, 3L << 17).folder(tmpfs.path()).create()) {
                assertTrue(mine.path().startsWith(tmpfs.path()));
                assertEquals(1, npyFiles(tmpfs.path()), "the kept copy made room");
            }
            assertEquals(5.0, pool.submit((double[] a) -> a[5], arg).get(30, TimeUnit.SECONDS), "the pool copies again");
        }
        assertEquals(0, npyFiles(tmpfs.path()), "close() released the copy kept again");
    }

    private static long npyFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.toString().endsWith(".npy")).count();
        }
    }

    @Test
    void theRingsOfAStartedPoolTakeTrafficAfterItsFolderFilledUp() throws Exception {
        final ProcessPool pool = ProcessPool.builder().workers(1).tempFolder(tmpfs.path()).build();
        try {
            fill(tmpfs.path());
            final String arg = "x".repeat(2000);
            for (int i = 0; i < 1500; i++) { // 3 MB each way: round both 1 MiB rings, over pages never touched before
                assertEquals(2000, pool.submit((String s) -> s.length(), arg).get(30, TimeUnit.SECONDS));
            }
            pool.close();
        } finally {
            pool.shutdownNow(); // a failed run must not hang in close (it did, after the worker died of the fault)
        }
    }

    private static void fill(Path dir) throws IOException {
        try (FileOutputStream out = new FileOutputStream(dir.resolve("filler").toFile())) {
            final byte[] block = new byte[4096];
            while (true) {
                out.write(block);
            }
        } catch (IOException e) {
            assertTrue(e.getMessage().contains("No space left"), e.getMessage());
        }
    }
}
