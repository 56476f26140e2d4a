package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A file with holes (blocks never written: a user's {@code .npy} made with {@code truncate} or NumPy's
 * {@code open_memmap}, an array file someone punched holes in) on a full file system: its open mapped it, and the
 * first write (on a tmpfs even the first read) of a hole faulted with SIGBUS, which HotSpot turned into an
 * {@code InternalError} at some later access, and which ended the JVM in native code (JNA, the codec). Now the open
 * reserves the holes as {@code create} preallocates, and refuses with {@link InsufficientSpaceException}, leaving the
 * file unchanged and nothing mapped or open. Needs root for the small tmpfs (CI runs as root): it fails, not skips,
 * without it.
 */
@ExtendWith(PrivateRoot.class)
class SparseFileTest {
    private static final long PAGE = 4096;
    private Path mount;

    @BeforeEach
    void mountSmallTmpfs() throws Exception {
        mount = Files.createTempDirectory("sharray-sparse-tmpfs");
        run("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mount.toString());
    }

    @AfterEach
    void unmount() throws Exception {
        // lazy: detached at once even while a mapping of a file in it is still being released
        new ProcessBuilder("umount", "-l", mount.toString()).start().waitFor();
        Files.deleteIfExists(mount);
    }

    /** 1 MiB of data (AGRONA), over 2 GiB whole pages (Chronicle), over 2 GiB not whole pages (a plain mmap). */
    @Test
    void aSparseNpyOnAFullFileSystemIsRefusedAtOpenUnchangedWithNothingLeft() throws Exception {
        for (long[] c : new long[][] {{1 << 17, 0}, {(1L << 28) + 1024, 1}, {(1L << 28) + 1024, 0}}) {
            final Path file = sparseNpy(mount.resolve("user-" + c[0] + "-" + c[1] + ".npy"), c[0], c[1] == 1);
            final Path filler = fill(mount);
            final long size = Files.size(file);
            final byte[] head = read(file, 0, 2 * PAGE);
            final byte[] tail = read(file, size - 2 * PAGE, 2 * PAGE);
            final long blocks = blocks(file);

            final InsufficientSpaceException e = assertThrows(InsufficientSpaceException.class,
                () -> SharedArray.openNpy(file).release(), "a sparse file of " + size + " bytes on a full tmpfs");
            assertTrue(e.getMessage().startsWith("not enough space in " + mount + " to back " + file + ": it has holes"),
                e.getMessage());
            assertEquals(mount, e.folder());
            assertTrue(e.requestedBytes() >= size - blocks && e.requestedBytes() <= size + PAGE, e.getMessage());
            assertEquals(0, e.freeBytes(), e.getMessage());

            assertEquals(size, Files.size(file), "the refused open changed the file's size");
            assertArrayEquals(head, read(file, 0, 2 * PAGE));
            assertArrayEquals(tail, read(file, size - 2 * PAGE, 2 * PAGE));
            assertEquals(blocks, blocks(file), "the refused open left blocks allocated (holes are zeros either way)");
            assertNothingOpenOrMapped(file);
            Files.delete(filler);
            Files.delete(file);
        }
    }

    @Test
    void withRoomTheSparseNpyOpensItsHolesReservedAndItsBytesKept() throws Exception {
        final long n = 1 << 17;
        final Path file = sparseNpy(mount.resolve("user.npy"), n, false);
        final Path filler = fill(mount);
        final byte[] before = Files.readAllBytes(file);
        assertThrows(InsufficientSpaceException.class, () -> SharedArray.openNpy(file).release());
        assertArrayEquals(before, Files.readAllBytes(file), "the refused open changed the file");

        Files.delete(filler); // room again: the same file opens, and its holes are backed
        try (SharedArray a = SharedArray.openNpy(file)) {
            assertEquals((Files.size(file) + PAGE - 1) / PAGE * PAGE, blocks(file), "the holes were not reserved at open");
            assertEquals(1.5, a.getDouble(0));
            assertEquals(-2.5, a.getDouble(n - 1));
            assertEquals(0.0, a.getDouble(n / 2));
            fill(mount); // the file system full again: the reserved holes take writes all the same
            a.setDouble(7, n / 2);
            a.copyFrom(new double[(int) n]);
            a.setDouble(3, n - 2);
        }
        assertTrue(Files.exists(file), "a user's file is never deleted");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            raf.seek(Files.size(file) - 16);
            assertEquals(3.0, Double.longBitsToDouble(Long.reverseBytes(raf.readLong())));
        }
    }

    @Test
    void aDenseNpyOpensOnAFullFileSystemWithoutAllocatingAnythingAlsoWithAHolePastItsData() throws Exception {
        final long n = 1 << 16;
        final Path file = sparseNpy(mount.resolve("dense.npy"), n, false);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(NpyHeader.encode(DType.FLOAT64, new long[] {n}).length + 8L);
            raf.write(new byte[(int) (n * 8 - 16)]); // every data byte written: no hole left
        }
        // and a copy with a hole past its data (not mapped: only header and data are)
        final Path tail = Files.copy(file, mount.resolve("dense-then-hole.npy"));
        try (RandomAccessFile raf = new RandomAccessFile(tail.toFile(), "rw")) {
            raf.setLength(raf.length() + (256 << 10));
        }
        fill(mount);
        for (Path f : List.of(file, tail)) {
            final long blocks = blocks(f);
            assertEquals((Files.size(file) + PAGE - 1) / PAGE * PAGE, blocks);
            try (SharedArray a = SharedArray.openNpy(f)) {
                a.setDouble(9, n / 2);
                assertEquals(-2.5, a.getDouble(n - 1));
            }
            assertEquals(blocks, blocks(f));
        }
    }

    /**
     * An array's {@code .ref} file whose first page someone punched out, opened on a full tmpfs: the open read the
     * header through its new mapping, and the tmpfs, out of pages for the hole, faulted (an {@code InternalError} in
     * {@code open}). It is refused as what it is now, a file without the header: the magic is read with {@code read}
     * first, which reads a hole as zeros without allocating. (The agent that holds the array is killed: its own
     * mapping of the punched page would fault at its release.)
     */
    @Test
    void aReferenceFileWithItsFirstPagePunchedOutIsRefusedAsNotOneNotAFault() throws Exception {
        try (ChildJvm agent = ChildJvm.start(ArrayAgent.class,
                List.of("-Dsharray.tempFolder=" + mount, "-Dsharray.reaper.disabled=true"))) {
            agent.expect("ready ");
            final Descriptor d = ArrayAgent.create(agent, "FLOAT64 4096");
            run("fallocate", "--punch-hole", "--offset", "0", "--length", Long.toString(PAGE),
                Segments.refPathFor(d.path()).toString());
            fill(mount);
            final InvalidDescriptorException e = assertThrows(InvalidDescriptorException.class, () -> SharedArray.open(d));
            assertEquals("refcount", e.field(), e.getMessage());
            assertNothingOpenOrMapped(d.path());
            agent.kill9();
        }
    }

    /**
     * On a disk file system (ext4, in a loop device) too. There the open must refuse before allocating: ext4 keeps what
     * an allocation that runs out took, so trying would have filled the file system for everyone (and reported the
     * 0 bytes then left as what was free).
     */
    @Test
    void onADiskFileSystemTheOpenRefusesBeforeAllocatingAndKeepsItsFreeSpace() throws Exception {
        final Path image = Files.createTempFile("sharray-sparse-ext4", ".img");
        final Path disk = Files.createTempDirectory("sharray-sparse-ext4");
        try {
            run("truncate", "-s", "32m", image.toString());
            run("mkfs.ext4", "-q", "-F", image.toString());
            run("mount", "-o", "loop", image.toString(), disk.toString());
            try {
                final long n = 1 << 19; // 4 MiB of holes
                final Path file = sparseNpy(disk.resolve("user.npy"), n, false);
                final Path filler = fill(disk, 1 << 20);
                final long free = Files.getFileStore(disk).getUsableSpace();
                final long blocks = blocks(file);
                final InsufficientSpaceException e = assertThrows(InsufficientSpaceException.class,
                    () -> SharedArray.openNpy(file).release());
                assertTrue(e.getMessage().startsWith("not enough space in " + disk + " to back " + file
                    + ": it has holes (blocks never written: a sparse file) that need at least "), e.getMessage());
                assertEquals(free, e.freeBytes(), e.getMessage());
                assertTrue(e.requestedBytes() > free && e.requestedBytes() <= n * 8, e.getMessage());
                assertEquals(free, Files.getFileStore(disk).getUsableSpace(), "the refused open took free space");
                assertEquals(blocks, blocks(file), "the refused open allocated blocks to the file");
                assertNothingOpenOrMapped(file);

                Files.delete(filler);
                try (SharedArray a = SharedArray.openNpy(file)) {
                    fill(disk, 0);
                    a.copyFrom(new double[(int) n]); // into what were holes, on a full file system
                    a.setDouble(-2.5, n - 1);
                }
                assertEquals(-2.5, Double.longBitsToDouble(Long.reverseBytes(
                    java.nio.ByteBuffer.wrap(read(file, Files.size(file) - 8, 8)).getLong())));
            } finally {
                new ProcessBuilder("umount", "-l", disk.toString()).start().waitFor();
            }
        } finally {
            Files.deleteIfExists(disk);
            Files.deleteIfExists(image);
        }
    }

    /** A sparse .npy of {@code n} float64: 1.5 first, -2.5 last, holes between; whole pages long if asked. */
    private static Path sparseNpy(Path file, long n, boolean wholePages) throws IOException {
        final byte[] header = NpyHeader.encode(DType.FLOAT64, new long[] {n});
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.write(header);
            raf.writeLong(Long.reverseBytes(Double.doubleToLongBits(1.5)));
            raf.seek(header.length + (n - 1) * 8);
            raf.writeLong(Long.reverseBytes(Double.doubleToLongBits(-2.5)));
            final long length = header.length + n * 8;
            raf.setLength(wholePages ? (length + PAGE - 1) / PAGE * PAGE : length);
        }
        return file;
    }

    /** Fills the file system of {@code dir} to the last block; returns the file that does. */
    private static Path fill(Path dir) throws IOException {
        return fill(dir, 0);
    }

    /** Fills the file system of {@code dir} until {@code leave} bytes (or less) are free; returns the file that does. */
    private static Path fill(Path dir, long leave) throws IOException {
        final Path filler = dir.resolve("filler-" + System.nanoTime());
        try (FileOutputStream out = new FileOutputStream(filler.toFile())) {
            final byte[] block = new byte[(int) PAGE];
            for (long left = Files.getFileStore(dir).getUsableSpace() - leave; leave == 0 || left > 0; left -= PAGE) {
                out.write(block);
            }
            out.getFD().sync();
        } catch (IOException e) {
            assertTrue(leave == 0 && e.getMessage().contains("No space left"), e.getMessage());
        }
        if (leave == 0) {
            assertEquals(0, Files.getFileStore(dir).getUsableSpace());
        }
        return filler;
    }

    private static byte[] read(Path file, long at, long length) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            final byte[] b = new byte[(int) length];
            raf.seek(at);
            raf.readFully(b);
            return b;
        }
    }

    /** @return the bytes of storage allocated to the file ({@code st_blocks * 512}) */
    private static long blocks(Path file) throws Exception {
        final Process p = new ProcessBuilder("stat", "-c", "%b", file.toString()).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertEquals(0, p.waitFor(), out);
        return Long.parseLong(out) * 512;
    }

    private static void assertNothingOpenOrMapped(Path file) throws IOException {
        assertFalse(Files.readString(Path.of("/proc/self/maps")).contains(file.toString()), file + " is still mapped");
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            assertFalse(fds.anyMatch(fd -> {
                try {
                    return Files.readSymbolicLink(fd).equals(file);
                } catch (IOException e) {
                    return false; // closed meanwhile (the listing's own descriptor)
                }
            }), file + " is still open");
        }
    }

    private static void run(String... command) throws Exception {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), String.join(" ", command) + " failed (needs root; CI runs as root): " + out);
    }
}
