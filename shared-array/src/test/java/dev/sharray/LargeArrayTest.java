package dev.sharray;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** More than 2 GiB on the MAPPED_FILE backing (on disk, preallocated without writing). */
class LargeArrayTest {
    @Test
    void elementsPastTwoGibAreReachableAndReopenable() throws Exception {
        long n = (1L << 31) / 8 + 4096; // a little over 2 GiB of float64
        Path root = Path.of(System.getProperty("java.io.tmpdir"));
        try (SharedArray a = SharedArray.builder(DType.FLOAT64, n).folder(root).backing(Backing.MAPPED_FILE).create()) {
            assertEquals(Backing.MAPPED_FILE, a.backing());
            assertTrue(Files.size(a.path()) > (1L << 31));
            long far = n - 1;
            assertTrue(a.offset() + far * 8 > (1L << 31));
            a.setDouble(3.25, far);
            a.setDouble(-1.5, 0);
            assertEquals(3.25, a.getDouble(far));
            try (SharedArray tail = a.slice(0, n - 1, (1L << 31) / 8 - 1, -1);
                 SharedArray reopened = SharedArray.open(Descriptor.fromBytes(tail.descriptor().toBytes()))) {
                assertEquals(3.25, reopened.getDouble(0));
                assertEquals(Backing.MAPPED_FILE, reopened.backing());
                reopened.setDouble(8.5, 1);
                assertEquals(8.5, a.getDouble(far - 1));
            }
            assertThrows(IndexOutOfBoundsException.class, () -> a.getDouble(n));
        }
    }

    @Test
    void anArrayJustUnderTwoGibReopensInAnotherJvm() throws Exception {
        // 128-byte header + 2,147,483,640 data bytes: just under 2^31, but the page-rounded file is exactly 2^31
        long n = 268_435_439;
        Path root = Path.of(System.getProperty("java.io.tmpdir"));
        try (SharedArray a = SharedArray.builder(DType.FLOAT64, n).folder(root).create();
             ChildJvm child = ChildJvm.start(ArrayAgent.class, java.util.List.of())) {
            assertEquals(1L << 31, Files.size(a.path()));
            a.setDouble(6.5, n - 1);
            child.expect("ready ");
            child.send("open " + java.util.HexFormat.of().formatHex(a.descriptor().toBytes()));
            String id = child.expect("id ");
            child.send("get " + id + " " + (n - 1));
            assertEquals(6.5, Double.parseDouble(child.expect("value ")), "the other JVM maps it (it used to refuse)");
            child.send("release " + id);
            assertEquals("ok", child.readLine());
        }
    }

    @Test
    void aFolderReachedThroughASymlinkStillGivesOneMappingPerProcess(@org.junit.jupiter.api.io.TempDir Path tmp)
        throws Exception {
        Path real = Files.createDirectories(tmp.resolve("real"));
        Path link = Files.createSymbolicLink(tmp.resolve("link"), real);
        try (SharedArray a = SharedArray.builder(DType.FLOAT64, 16).folder(link.resolve("..").resolve("link")).create();
             SharedArray b = SharedArray.open(a.descriptor())) {
            assertEquals(a.path().toRealPath(), a.path(), "arrays live at their real path");
            assertEquals(a.address(), b.address(), "a reopened handle shares the creator's mapping");
            assertEquals(2, SharedArrays.localReferences(a));
        }
    }

    @Test
    void aNumpyFileOverTwoGibIsMappedWithoutChangingItsSize(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        long n = (1L << 31) / 8 + 1001; // header + data is not a page multiple, as NumPy writes it
        byte[] header = NpyHeader.encode(DType.FLOAT64, new long[] {n});
        Path file = tmp.resolve("big.npy");
        long size = header.length + n * 8;
        try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(file.toFile(), "rw")) {
            raf.write(header);
            raf.setLength(size); // sparse
        }
        assertTrue(size % 4096 != 0);
        try (SharedArray a = SharedArray.openNpy(file)) {
            a.setDouble(2.75, n - 1);
            assertEquals(2.75, a.getDouble(n - 1));
            assertEquals(size, Files.size(file), "mapping a user's file never grows it");
        }
        assertEquals(size, Files.size(file));
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file)) {
            java.nio.ByteBuffer last = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            ch.read(last, size - 8);
            assertEquals(2.75, last.getDouble(0), "the write reached the file");
        }
    }
}
