package dev.sharray.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jna.Pointer;
import dev.sharray.ChildJvm;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A mapped file truncated under a shard (by this process or another) makes its memory raise SIGBUS. The NATIVE
 * and ISAL backends, and {@link Crc32c}, must fail that call with {@link MemoryFaultException} and stay usable:
 * without the guard their native code, and the JDK's CRC-32C, ended the JVM. Faults the guard does not own
 * still reach the JVM's handler.
 */
class MemoryFaultTest {
    private static final int K = 4;
    private static final int M = 2;
    private static final int SHARD = 64 * 1024;
    /** What is left of a truncated file: the first page. */
    private static final int KEPT = 4096;

    @TempDir
    Path dir;

    private final List<MappedByteBuffer> mappings = new ArrayList<>();

    @AfterEach
    void unmap() {
        mappings.forEach(BufferUtil::free); // only the memory past the file's end faults; unmapping never does
    }

    /**
     * Child side, with the guard installed: {@code foreign} reads a truncated mapping with JNA's unguarded native
     * reader (the JVM must end as it would without us); {@code java} encodes on the JAVA backend over it;
     * {@code native} on the NATIVE backend, then reads it from Java.
     */
    public static void main(String[] args) throws Exception {
        MappedByteBuffer mapped = truncatedMappingOf(Path.of(args[1]), (K + M) * SHARD);
        Crc32c.update(0, ByteBuffer.allocateDirect(8)); // the guard is installed when the native library loads
        System.out.println("guard " + NativeLib.available());
        if (args[0].equals("foreign")) {
            System.out.println("read " + new Pointer(Buffers.base(mapped)).getByte(KEPT));
            return;
        }
        ByteBuffer[] shards = directShards();
        shards[1] = mapped.slice(SHARD, SHARD);
        if (args[0].equals("native")) {
            try {
                ErasureCodec.builder(K, M).backend(Backend.NATIVE).build().encode(shards);
                System.out.println("native none");
            } catch (MemoryFaultException e) {
                System.out.println("native " + e.getClass().getSimpleName());
            }
            try {
                mapped.get(2 * SHARD);
                Thread.sleep(1); // back from native code: the JVM throws an error it deferred, at the latest here
                System.out.println("java none");
            } catch (InternalError e) {
                System.out.println("java " + e.getMessage());
            }
            return;
        }
        try {
            ErasureCodec.builder(K, M).backend(Backend.JAVA).build().encode(shards);
            Thread.sleep(1); // back from native code: the JVM throws an error it deferred, at the latest here
            System.out.println("java none");
        } catch (InternalError e) {
            System.out.println("java " + e.getMessage());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"NATIVE", "ISAL"})
    void everyCallOverATruncatedMappedShardFailsWithAMemoryFaultAndTheCodecStaysUsable(Backend backend) throws IOException {
        ErasureCodec codec = ErasureCodec.builder(K, M).backend(backend).build();
        MappedByteBuffer file = truncatedMapping(dir.resolve("shards"), (K + M) * SHARD);

        // encode reading a data shard past the end of the file
        ByteBuffer[] shards = directShards();
        shards[1] = file.slice(SHARD, SHARD);
        assertFault(backend, 1, () -> codec.encode(shards));

        // reconstruct writing a missing data shard past the end of the file
        ByteBuffer[] lost = directShards();
        codec.encode(lost);
        lost[2] = file.slice(2 * SHARD, SHARD);
        boolean[] present = {true, true, false, true, true, true};
        assertFault(backend, 2, () -> codec.reconstruct(lost, present));

        // verify reading a parity shard past the end of the file
        ByteBuffer[] checked = directShards();
        checked[K] = file.slice(K * SHARD, SHARD);
        assertFault(backend, K, () -> codec.verify(checked));

        // update patching parity past the end of the file
        ByteBuffer[] updated = directShards();
        updated[K + 1] = file.slice((K + 1) * SHARD, SHARD);
        assertFault(backend, K + 1, () -> codec.update(updated, 0, ByteBuffer.allocateDirect(SHARD)));

        // the codec, and this thread, still code correctly
        ByteBuffer[] good = directShards();
        codec.encode(good);
        byte[][] heap = stripe();
        ErasureCodec.create(K, M).encode(heap);
        for (int p = K; p < K + M; p++) {
            byte[] parity = new byte[SHARD];
            good[p].duplicate().get(parity);
            assertArrayEquals(heap[p], parity, "parity row " + p + " after the faults");
        }
        assertTrue(codec.verify(good));
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"NATIVE", "ISAL"})
    void aStripeWhoseFileIsTruncatedUnderItsParityRowsFailsNamingAParityRow(Backend backend) throws IOException {
        ErasureCodec codec = ErasureCodec.builder(K, M).backend(backend).build();
        try (dev.sharray.SharedArray stripe = dev.sharray.SharedArray.create(dev.sharray.DType.UINT8, K + M, SHARD)) {
            long parityStart = stripe.descriptor().offset() + (long) K * SHARD;
            try (FileChannel ch = FileChannel.open(stripe.path(), StandardOpenOption.WRITE)) {
                ch.truncate(parityStart);
            }
            MemoryFaultException e = assertThrows(MemoryFaultException.class, () -> codec.encode(stripe));
            assertTrue(e.shard() >= K && e.shard() < K + M, "the faulting row: " + e.getMessage());
            assertTrue(e.getMessage().startsWith("the memory of stripe row " + e.shard() + " faulted"), e.getMessage());
            assertEquals(-1, ((MemoryFaultException) e.getCause()).shard(), "the guard's own fault names no shard");
        }
    }

    @Test
    void aChecksumOverATruncatedMappingIsAMemoryFaultAndJavaReadsStillGetTheJvmsError() throws IOException {
        assertNull(NativeLib.failure(), "the native library (and its guard) must load here");
        MappedByteBuffer file = truncatedMapping(dir.resolve("data"), 4 * KEPT);
        assertEquals(crcOfFirstPage(file), Crc32c.update(0, file.slice(0, KEPT)), "the intact page checksums");
        MemoryFaultException e = assertThrows(MemoryFaultException.class, () -> Crc32c.update(0, file));
        assertTrue(e.getMessage().contains("checksumming"), e.getMessage());
        // the guard passes every fault outside its calls to the JVM's handler, which turns a Java read into an
        // error (deferred in compiled code: back from the native sleep at the latest); without it the JVM would end
        InternalError jvm = assertThrows(InternalError.class, () -> {
            file.get(2 * KEPT);
            Thread.sleep(1);
        });
        assertTrue(jvm.getMessage().startsWith("a fault occurred in "), jvm.getMessage());
        assertEquals(crcOfFirstPage(file), Crc32c.update(0, file.slice(0, KEPT)), "and checksums still work");
    }

    @Test
    void withTheJvmsSignalChainingLibraryTheGuardStillCatchesAndTheJvmStillHandlesItsOwn() throws Exception {
        // libjsig keeps the JVM's handler installed and hands it ours to call for faults it does not own
        Path libjsig = Path.of(System.getProperty("java.home"), "lib", "libjsig.so");
        assertTrue(Files.exists(libjsig), libjsig + " ships with every JDK");
        try (ChildJvm child = ChildJvm.start(MemoryFaultTest.class, List.of(), Map.of("LD_PRELOAD", libjsig.toString()),
            "native", dir.resolve("data").toString())) {
            assertEquals("true", child.expect("guard "));
            assertEquals("MemoryFaultException", child.expect("native "));
            assertTrue(child.expect("java ").startsWith("a fault occurred in "), "the JVM's error for a Java read");
            assertEquals(0, child.finish());
        }
    }

    @Test
    void theJavaBackendGetsTheJvmsErrorAndTheJvmLives() throws Exception {
        try (ChildJvm child = ChildJvm.start(MemoryFaultTest.class, List.of(), "java", dir.resolve("data").toString())) {
            assertEquals("true", child.expect("guard "));
            assertTrue(child.expect("java ").startsWith("a fault occurred in "), "the JVM's error for an Unsafe copy");
            assertEquals(0, child.finish());
        }
    }

    @Test
    void aFaultOutsideAGuardedCallStillReachesTheJvm() throws Exception {
        Path errorFile = dir.resolve("hs_err.log");
        // no core file either: where core dumps are on, the crash would write one into the working directory
        try (ChildJvm child = ChildJvm.start(MemoryFaultTest.class, List.of("-XX:ErrorFile=" + errorFile,
            "-XX:-CreateCoredumpOnCrash"), "foreign", dir.resolve("child-data").toString())) {
            assertEquals("true", child.expect("guard "));
            assertTrue(child.process().waitFor(60, TimeUnit.SECONDS), "the child neither ended nor returned");
            try {
                for (String line = child.readLine(); ; line = child.readLine()) {
                    assertFalse(line.startsWith("read "), "the unguarded read returned: " + line);
                }
            } catch (IOException exited) {
                // every line read: the JVM's crash banner, and no value
            }
            // the JVM's handler got the fault (native code it does not guard) and wrote its report, as without us
            // HotSpot's fatal-error exit when it may not dump core (os::abort without a core is exit(1))
            assertEquals(1, child.process().exitValue(), "the JVM's fatal-error exit, not a hang or a jump back");
            try (Stream<String> lines = Files.lines(errorFile)) {
                assertTrue(lines.anyMatch(l -> l.contains("SIGBUS")), "the JVM's report names the signal");
            }
        }
    }

    /** The call fails with a fault that names {@code shard}, over the guard's fault on {@code backend}. */
    private static void assertFault(Backend backend, int shard, org.junit.jupiter.api.function.Executable call) {
        MemoryFaultException e = assertThrows(MemoryFaultException.class, call);
        assertEquals(shard, e.shard(), e.getMessage());
        assertTrue(e.getMessage().startsWith("the memory of shard " + shard + " faulted"), e.getMessage());
        assertTrue(e.getCause().getMessage().contains("on the " + backend + " backend"), e.getCause().getMessage());
    }

    /** The same random stripe every time, parity zero. */
    private static byte[][] stripe() {
        return Codecs.randomStripe(new Random(7), K, M, SHARD);
    }

    /** {@link #stripe()} in K + M direct shards. */
    private static ByteBuffer[] directShards() {
        byte[][] stripe = stripe();
        ByteBuffer[] shards = new ByteBuffer[K + M];
        for (int i = 0; i < shards.length; i++) {
            shards[i] = ByteBuffer.allocateDirect(SHARD).put(stripe[i]).flip();
        }
        return shards;
    }

    /**
     * Maps {@code size} bytes of a new file read-write, then cuts the file to its first page. A child JVM's
     * mapping ends with it; this JVM's are unmapped after each test, not left to the GC.
     */
    private MappedByteBuffer truncatedMapping(Path file, int size) throws IOException {
        MappedByteBuffer mapped = truncatedMappingOf(file, size);
        mappings.add(mapped);
        return mapped;
    }

    private static MappedByteBuffer truncatedMappingOf(Path file, int size) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
            StandardOpenOption.WRITE)) {
            byte[] data = new byte[size];
            new Random(3).nextBytes(data);
            ch.write(ByteBuffer.wrap(data), 0);
            MappedByteBuffer mapped = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
            ch.truncate(KEPT);
            return mapped;
        }
    }

    private static int crcOfFirstPage(MappedByteBuffer file) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        byte[] page = new byte[KEPT];
        file.get(0, page);
        crc.update(page);
        return (int) crc.getValue();
    }
}
