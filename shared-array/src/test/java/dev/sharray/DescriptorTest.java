package dev.sharray;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** Descriptor bytes: round trip, every specific rejection, and a fuzz run that must never crash the JVM. */
class DescriptorTest {
    /** Encodes arbitrary (possibly invalid) fields with a correct checksum, bypassing all validation. */
    static byte[] raw(int magic, int version, int dtype, int order, long offset, long[] shape, long[] strides, String path) {
        return raw(magic, version, dtype, order, offset, shape, strides, path.getBytes(StandardCharsets.UTF_8));
    }

    /** Same, with the path's bytes as given (they need not be UTF-8). */
    static byte[] raw(int magic, int version, int dtype, int order, long offset, long[] shape, long[] strides, byte[] p) {
        ByteBuffer b = ByteBuffer.allocate(16 + 16 * shape.length + 2 + p.length + 4).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(magic).put((byte) version).put((byte) dtype).put((byte) order).put((byte) shape.length).putLong(offset);
        for (long s : shape) {
            b.putLong(s);
        }
        for (long s : strides) {
            b.putLong(s);
        }
        b.putShort((short) p.length).put(p);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putInt((int) crc.getValue());
        return b.array();
    }

    private static String field(byte[] bytes) {
        return assertThrows(InvalidDescriptorException.class, () -> SharedArray.open(Descriptor.fromBytes(bytes))).field();
    }

    @Test
    void roundTripAndReadableToString() {
        try (SharedArray a = SharedArray.create(DType.FLOAT32, 3, 4); SharedArray v = a.slice(1, 3, -1, -2)) {
            Descriptor d = v.descriptor();
            Descriptor back = Descriptor.fromBytes(d.toBytes());
            assertEquals(d, back);
            assertArrayEquals(new long[] {16, -8}, back.strides());
            assertTrue(d.toString().contains("float32 (3, 2) strides (16, -8) little-endian"), d.toString());
            assertTrue(d.toBytes().length < 200);
        }
    }

    @Test
    void pathsDecodeAsStrictUtf8WithAnAsciiFastPath() {
        final long[] shape = {4};
        final long[] strides = {8};
        // ASCII (sharray's own paths) and non-ASCII paths decode to the path that was encoded
        for (String path : new String[] {"/dev/shm/sharray-root/u/a1.npy", "/tmp/d\u00e9j\u00e0/\u6570\u7ec4.npy"}) {
            final Descriptor d = Descriptor.fromBytes(raw(Descriptor.MAGIC, 1, 6, 0, 128, shape, strides, path));
            assertEquals(path, d.path().toString());
        }
        // malformed UTF-8 after an ASCII prefix, a lone continuation byte, an overlong NUL: refused, never replaced
        for (byte[] bad : new byte[][] {
            {'/', 't', 'm', 'p', '/', (byte) 0xC3, '(', '.', 'n', 'p', 'y'},
            {'/', (byte) 0x80, 'a'},
            {'/', (byte) 0xC0, (byte) 0x80, 'a'}}) {
            final InvalidDescriptorException e = assertThrows(InvalidDescriptorException.class,
                () -> Descriptor.fromBytes(raw(Descriptor.MAGIC, 1, 6, 0, 128, shape, strides, bad)));
            assertEquals("path", e.field());
        }
        // a NUL stays refused on the fast path
        assertEquals("path", assertThrows(InvalidDescriptorException.class,
            () -> Descriptor.fromBytes(raw(Descriptor.MAGIC, 1, 6, 0, 128, shape, strides, "/tmp/a\0b.npy"))).field());
    }

    @Test
    void everyMalformedFormIsRejectedNamingTheField() {
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 4, 4)) {
            Descriptor d = a.descriptor();
            byte[] good = d.toBytes();
            String path = d.path().toString();
            long off = d.offset();
            assertEquals("magic", field(Arrays.copyOf(good, 3)));
            assertEquals("shape/strides", field(Arrays.copyOf(good, 20)));
            assertEquals("path", field(Arrays.copyOf(good, good.length - 5)));
            byte[] corrupted = good.clone();
            corrupted[20] ^= 1;
            assertEquals("checksum", field(corrupted));
            assertEquals("magic", field(raw(0x12345678, 1, 6, 0, off, new long[] {4}, new long[] {8}, path)));
            InvalidDescriptorException future = assertThrows(InvalidDescriptorException.class,
                () -> Descriptor.fromBytes(raw(Descriptor.MAGIC, 9, 6, 0, off, new long[] {4}, new long[] {8}, path)));
            assertTrue(future.getMessage().contains("newer"), future.getMessage());
            assertEquals("dtype", field(raw(Descriptor.MAGIC, 1, 77, 0, off, new long[] {4}, new long[] {8}, path)));
            assertEquals("byteOrder", field(raw(Descriptor.MAGIC, 1, 6, 1, off, new long[] {4}, new long[] {8}, path)));
            assertEquals("shape", field(raw(Descriptor.MAGIC, 1, 6, 0, off, new long[] {-4}, new long[] {8}, path)));
            assertEquals("shape", field(raw(Descriptor.MAGIC, 1, 6, 0, off, new long[] {1L << 40, 1L << 40}, new long[] {8, 8}, path)));
            assertEquals("offset", field(raw(Descriptor.MAGIC, 1, 6, 0, -8, new long[] {4}, new long[] {8}, path)));
            assertEquals("offset", field(raw(Descriptor.MAGIC, 1, 6, 0, off, new long[] {17}, new long[] {8}, path)));
            assertEquals("offset", field(raw(Descriptor.MAGIC, 1, 6, 0, off + 8, new long[] {4, 4}, new long[] {32, 8}, path)));
            assertEquals("offset", field(raw(Descriptor.MAGIC, 1, 6, 0, off, new long[] {2}, new long[] {-8}, path)));
            // inside the data but between two elements: each element would straddle two of the file's (garbage values)
            assertEquals("offset", field(raw(Descriptor.MAGIC, 1, 6, 0, off + 4, new long[] {2}, new long[] {8}, path)));
            assertEquals("offset", field(raw(Descriptor.MAGIC, 1, 6, 0, off + 1, new long[] {0}, new long[] {8}, path)));
            assertEquals("strides", field(raw(Descriptor.MAGIC, 1, 6, 0, 0, new long[] {2}, new long[] {-8}, path)));
            assertEquals("strides", field(raw(Descriptor.MAGIC, 1, 6, 0, off, new long[] {2}, new long[] {3}, path)));
            assertEquals("strides", field(raw(Descriptor.MAGIC, 1, 6, 0, off, new long[] {3}, new long[] {Long.MAX_VALUE / 2}, path)));
            // another dtype than the file's reads the same bytes (a viewAs view), on its own element boundaries
            try (SharedArray floats = SharedArray.open(Descriptor.fromBytes(
                     raw(Descriptor.MAGIC, 1, 5, 0, off + 4, new long[] {4}, new long[] {4}, path)))) {
                a.setDouble(Double.longBitsToDouble(0x3f800000_00000000L), 0, 0);
                assertEquals(1f, floats.getFloat(0)); // the high half of the first double
            }
            assertEquals("offset", field(raw(Descriptor.MAGIC, 1, 4, 0, off + 4, new long[] {4}, new long[] {8}, path)));
            assertEquals("strides", field(raw(Descriptor.MAGIC, 1, 5, 0, off, new long[] {4}, new long[] {6}, path)));
            assertEquals("offset", field(raw(Descriptor.MAGIC, 1, 5, 0, off + 4, new long[] {32}, new long[] {4}, path)));
            assertEquals("path", field(raw(Descriptor.MAGIC, 1, 6, 0, off, new long[] {4}, new long[] {8}, "relative.npy")));
            assertEquals("path", field(raw(Descriptor.MAGIC, 1, 6, 0, 0, new long[] {4}, new long[] {1}, "/etc/passwd")));
            byte[] trailing = Arrays.copyOf(good, good.length + 1);
            assertEquals("length", field(trailing));
        }
    }

    @Test
    void aPathThatDoesNotResolveIsReleasedOnlyWhereAnArrayCouldBe() {
        SharedArray a = SharedArray.create(DType.FLOAT64, 4);
        Path gone = a.path().resolveSibling("a9-0000abcd.npy"); // the layout of this process's arrays
        a.release();
        for (String outside : new String[] {"/nonexistent/x.npy", "/etc/passwd/x.npy", "/proc/self/nonexistent.npy"}) {
            Descriptor d = new Descriptor(Path.of(outside), 128, new long[] {4}, new long[] {8}, DType.FLOAT64,
                java.nio.ByteOrder.LITTLE_ENDIAN);
            // before: "has been released by all its holders", or an UncheckedIOException "Not a directory"
            InvalidDescriptorException e = assertThrows(InvalidDescriptorException.class, () -> SharedArray.open(d), outside);
            assertEquals("path", e.field());
            assertTrue(e.getMessage().contains("is not in a sharray folder"), e.getMessage());
        }
        Descriptor d = new Descriptor(gone, 128, new long[] {4}, new long[] {8}, DType.FLOAT64, java.nio.ByteOrder.LITTLE_ENDIAN);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> SharedArray.open(d));
        assertTrue(e.getMessage().contains("released"), e.getMessage());
    }

    @Test
    void aPathThatLooksLikeAnArrayButResolvesToNoneIsAnInvalidDescriptor() throws Exception {
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 4)) {
            final Path loop = a.path().resolveSibling("a902-0000beef.npy");
            Files.createSymbolicLink(loop, loop.getFileName());
            try {
                // before: UncheckedIOException "Not a directory" and "Too many levels of symbolic links"
                for (Path p : new Path[] {a.path().resolve("."), a.path().resolve("x").resolve(".."), loop}) {
                    Descriptor d = new Descriptor(p, 128, new long[] {4}, new long[] {8}, DType.FLOAT64,
                        ByteOrder.LITTLE_ENDIAN);
                    InvalidDescriptorException e = assertThrows(InvalidDescriptorException.class, () -> SharedArray.open(d),
                        p.toString());
                    assertEquals("path", e.field());
                    assertTrue(e.getMessage().contains("names no array file"), e.getMessage());
                }
            } finally {
                Files.deleteIfExists(loop);
            }
            assertEquals(4, a.size(), "the array itself is untouched");
        }
    }

    /**
     * The fuzz review's paths: an array's layout under a file, or with a name longer than a file name can be, gave
     * an UncheckedIOException ("Not a directory", "File name too long"), which the reducers passed on where they
     * promise MalformedDataException.
     */
    @Test
    void anArraysLayoutUnderAFileOrWithTooLongANameIsAnInvalidDescriptor(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        final Path file = Files.writeString(dir.resolve("plain"), "x");
        final String layout = TempFolders.userFolderName() + "/host-1-t1-0000abcd/";
        for (Path p : new Path[] {file.resolve(layout + "a1-00000000.npy"),
            dir.resolve(layout + "a".repeat(300) + ".npy")}) {
            final Descriptor d = new Descriptor(p, 128, new long[] {4}, new long[] {8}, DType.FLOAT64,
                ByteOrder.LITTLE_ENDIAN);
            final InvalidDescriptorException e = assertThrows(InvalidDescriptorException.class, () -> SharedArray.open(d),
                p.toString());
            assertEquals("path", e.field());
            assertTrue(e.getMessage().contains("names no array file"), e.getMessage());
        }
    }

    @Test
    void descriptorsOfReleasedArraysFailClearly() {
        SharedArray a = SharedArray.create(DType.FLOAT64, 4);
        Descriptor d = a.descriptor();
        a.release();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> SharedArray.open(d));
        assertTrue(e.getMessage().contains("released"), e.getMessage());
    }

    @Test
    void aDirectoryOrFifoUnderAnArraysNameIsRefusedAndNeverBlocksListing() throws Exception {
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 4)) {
            Path folder = a.path().getParent();
            Path dir = Files.createDirectory(folder.resolve("a900-0000beef.npy"));
            Path fifo = folder.resolve("a901-0000beef.npy");
            Path fifoRef = folder.resolve("a901-0000beef.ref");
            try {
                assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor());
                // a live refcount file beside the FIFO, so listing reads the FIFO's "header"
                Files.copy(a.path().resolveSibling(a.path().getFileName().toString()
                    .replace(".npy", ".ref")), fifoRef);
                for (Path p : new Path[] {dir, fifo}) {
                    Descriptor d = new Descriptor(p, 128, new long[] {4}, new long[] {8}, DType.FLOAT64,
                        ByteOrder.LITTLE_ENDIAN);
                    InvalidDescriptorException e = assertThrows(InvalidDescriptorException.class, () -> SharedArray.open(d));
                    assertEquals("path", e.field());
                    assertTrue(e.getMessage().contains("not a regular file"), e.getMessage());
                }
                // before: listing opened the FIFO for reading and blocked until someone wrote to it
                List<ArrayInfo> listed = assertTimeoutPreemptively(Duration.ofSeconds(60),
                    SharedArrays::list, "listing blocked on a FIFO");
                assertTrue(listed.stream().anyMatch(i -> i.path().equals(a.path())), "the real array is listed");
                assertTrue(listed.stream().noneMatch(i -> i.path().equals(fifo)), "the FIFO is not");
            } finally {
                Files.deleteIfExists(fifoRef);
                Files.deleteIfExists(fifo);
                Files.deleteIfExists(dir);
            }
        }
    }

    @Test
    void fuzzRandomAndMutatedDescriptorsNeverCrashOrEscape() {
        Random rnd = new Random(7);
        int opened = 0;
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 16, 8)) {
            Descriptor d = a.descriptor();
            byte[] good = d.toBytes();
            String path = d.path().toString();
            for (int i = 0; i < 10_000; i++) {
                byte[] bytes;
                switch (i % 4) {
                    case 0: // random bytes
                        bytes = new byte[rnd.nextInt(120)];
                        rnd.nextBytes(bytes);
                        break;
                    case 1: // bit flips in a valid descriptor
                        bytes = good.clone();
                        for (int k = 0; k < 1 + rnd.nextInt(3); k++) {
                            bytes[rnd.nextInt(bytes.length)] ^= (byte) (1 << rnd.nextInt(8));
                        }
                        break;
                    case 2: // truncations and extensions
                        bytes = Arrays.copyOf(good, rnd.nextInt(good.length * 2));
                        break;
                    default: { // well-formed bytes with hostile fields
                        int nd = rnd.nextInt(4);
                        long[] shape = new long[nd];
                        long[] strides = new long[nd];
                        for (int k = 0; k < nd; k++) {
                            shape[k] = pick(rnd, new long[] {0, 1, 2, 8, 16, 17, -1, Long.MAX_VALUE, 1L << 32});
                            strides[k] = pick(rnd, new long[] {8, -8, 64, -64, 0, 4, 1L << 40, Long.MIN_VALUE, 128});
                        }
                        long offset = pick(rnd, new long[] {d.offset(), d.offset() + 8, 0, -1, 1L << 50, d.offset() + 1016});
                        String p = rnd.nextInt(5) == 0 ? "/dev/shm/../etc/passwd" : path;
                        bytes = raw(Descriptor.MAGIC, 1, rnd.nextInt(8), 0, offset, shape, strides, p);
                    }
                }
                try (SharedArray v = SharedArray.open(Descriptor.fromBytes(bytes))) {
                    opened++;
                    touchCorners(v); // the view's extreme elements must lie inside the file
                } catch (InvalidDescriptorException | IllegalStateException | UnsupportedOperationException expected) {
                    // rejected with a specific exception
                }
            }
            assertEquals(0, SharedArrays.localReferences(a) - 1, "fuzzing leaked references");
        }
        assertTrue(opened > 50, "the fuzz run should also produce valid views, got " + opened);
    }

    private static void touchCorners(SharedArray v) {
        if (v.size() == 0) {
            return;
        }
        long[] first = new long[v.ndim()];
        long[] last = v.shape();
        for (int i = 0; i < last.length; i++) {
            last[i]--;
        }
        v.getDouble(first);
        v.getDouble(last);
        if (v.size() < 10_000) {
            v.sum();
        }
    }

    private static long pick(Random rnd, long[] options) {
        return options[rnd.nextInt(options.length)];
    }
}
