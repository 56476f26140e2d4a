package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link MappedRegion}: both routes (JDK 17 runs the buffer one, JDK 22+ the arena one) map, share and unmap. */
class MappedRegionTest {
    private static final int LENGTH = 3 * 4096 + 100; // not a page multiple

    @TempDir
    Path dir;

    @Test
    void onJdk22AndLaterRegionsAreMappedThroughArenas() {
        // fails when a JDK 22+ build lost src/main/java22, or its mapper no longer loads
        assertEquals(Runtime.version().feature() >= 22, MappedRegion.mapsThroughArenas(),
            "JDK " + Runtime.version().feature());
    }

    @Test
    void writesThroughTheRegionReachTheFileAndTheFilesReachTheRegion() throws IOException {
        final Path file = file("shared");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final MappedRegion region = MappedRegion.map(ch, LENGTH);
            try {
                assertEquals(LENGTH, region.length());
                assertEquals(0, region.address() % 4096, "a mapping starts on a page");
                final UnsafeBuffer memory = new UnsafeBuffer(region.address(), LENGTH);
                memory.putLong(LENGTH - 8, 0x1122334455667788L);
                final ByteBuffer read = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
                ch.read(read, LENGTH - 8);
                assertEquals(0x1122334455667788L, read.getLong(0), "the region's write is in the file");

                ch.write(ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, 42), 8);
                assertEquals(42, memory.getLong(8), "the file's write is in the region");
            } finally {
                region.unmap();
            }
        }
    }

    @Test
    void unmapRemovesTheMappingOnAnotherThreadAndASecondUnmapIsRefused() throws Exception {
        final Path file = file("unmapped");
        final MappedRegion region = map(file);
        assertTrue(mapped(file), "mapped");
        // regions are released by whichever thread releases the array: a confined arena would refuse this
        CompletableFuture.runAsync(region::unmap).get();
        assertFalse(mapped(file), "no page of the file is mapped after unmap");
        final IllegalStateException again = assertThrows(IllegalStateException.class, region::unmap);
        assertTrue(again.getMessage().contains("already unmapped"), again.getMessage());
    }

    @Test
    void aRegionFreedAfterReleasedRangesReservedItIsUnmappedToo() throws Exception {
        final Path file = file("reserved");
        final MappedRegion region = map(file);
        region.unmapReserved(); // its length is not a page multiple: munmap still takes the last page
        assertFalse(mapped(file), "no page of the file is mapped after the reserved range is freed");
        assertThrows(IllegalStateException.class, region::unmap);
    }

    @Test
    void aShorterFileIsGrownToTheRegionsLength() throws IOException {
        final Path file = dir.resolve("short");
        Files.write(file, new byte[100]);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final MappedRegion region = MappedRegion.map(ch, LENGTH);
            try {
                assertEquals(LENGTH, Files.size(file), "no page of the region lies past the file's end");
                new UnsafeBuffer(region.address(), LENGTH).putByte(LENGTH - 1, (byte) 7); // would be SIGBUS past the end
            } finally {
                region.unmap();
            }
        }
        assertEquals(7, Files.readAllBytes(file)[LENGTH - 1]);
    }

    @Test
    void lengthsOutOfRangeAreRefusedAndMapNothing() throws IOException {
        final Path file = file("lengths");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            for (long bad : new long[] {0, -1, MappedRegion.MAX_LENGTH + 1, Long.MIN_VALUE}) {
                final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MappedRegion.map(ch, bad));
                assertTrue(e.getMessage().contains(Long.toString(bad)), e.getMessage());
            }
        }
        assertFalse(mapped(file));
    }

    private Path file(String name) throws IOException {
        final Path file = dir.resolve(name);
        Files.write(file, new byte[LENGTH]);
        return file;
    }

    private static MappedRegion map(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return MappedRegion.map(ch, LENGTH);
        }
    }

    private static boolean mapped(Path file) throws IOException {
        return Files.readString(Path.of("/proc/self/maps")).contains(file.toString());
    }

    /**
     * The JDK passed an interrupted mmap (EINTR, seen under a tracer's fault injection) on as a mapping at -3; create
     * returned an array there, and its first access ended the JVM (fault review 49, F1:
     * {@code strace -p <main thread> -e inject=mmap:error=EINTR:when=2} on a create). Such an address is refused.
     */
    @Test
    void anAddressNoMappingHasIsRefused() throws IOException {
        for (long bad : new long[] {-3, -1, 0, 1, 4095, 4097, 0x7f0000000123L}) {
            final IOException e = assertThrows(IOException.class, () -> MappedRegion.requireMappedAddress(bad, 4096));
            assertTrue(e.getMessage().contains("the JDK returned " + bad + " as its address"), e.getMessage());
        }
        MappedRegion.requireMappedAddress(0x7f0000001000L, 4096);
    }
}
