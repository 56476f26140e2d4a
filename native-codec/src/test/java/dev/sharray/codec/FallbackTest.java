package dev.sharray.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.ChildJvm;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** AUTO falls back to the Java backend, with one log line saying why, where the native library cannot load. */
class FallbackTest {

    /** Child side: reports the backend AUTO chose and the known-answer parity it computes. */
    public static void main(String[] args) {
        try {
            ErasureCodec.builder(2, 1).backend(Backend.NATIVE).build();
            System.out.println("refused no");
        } catch (IllegalStateException e) {
            System.out.println("refused " + e.getMessage());
        }
        ErasureCodec codec = ErasureCodec.create(5, 5);
        byte[][] shards = {{0, 1}, {4, 5}, {2, 3}, {6, 7}, {8, 9}, new byte[2], new byte[2], new byte[2],
            new byte[2], new byte[2]};
        codec.encode(shards);
        System.out.println("codec " + codec.backend() + " " + codec.simdLevel() + " "
            + Arrays.deepToString(Arrays.copyOfRange(shards, 5, 10)));
        // without the native library, checksums of direct memory go through heap copies, which the JVM guards
        byte[] bytes = "123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        System.out.println("crc " + Integer.toHexString(Crc32c.update(0, ByteBuffer.allocateDirect(9).put(bytes).flip())));
        try (FileChannel ch = FileChannel.open(Path.of(args[0]), StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
            StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(1 << 16), 0);
            ByteBuffer mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, 1 << 16);
            ch.truncate(4096);
            Crc32c.update(0, mapped);
            Thread.sleep(1); // back from native code: the JVM throws an error it deferred, at the latest here
            System.out.println("fault none");
        } catch (InternalError e) {
            System.out.println("fault " + e.getMessage());
        } catch (IOException | InterruptedException e) {
            System.out.println("fault " + e);
        }
    }

    @Test
    void autoUsesJavaWhenTheNativeLibraryIsUnavailable(@TempDir Path dir) throws Exception {
        try (ChildJvm child = ChildJvm.start(FallbackTest.class, List.of("-Dsharray.codec.disableNative=true",
            "-Dorg.slf4j.simpleLogger.logFile=System.out"), dir.resolve("truncated").toString())) {
            assertEquals("native codec library unavailable: disabled by -Dsharray.codec.disableNative=true",
                child.expect("refused "), "asking for NATIVE explicitly is refused with the reason");
            assertEquals("dev.sharray.codec.ErasureCodec - sharray codec: native library unavailable (disabled by "
                + "-Dsharray.codec.disableNative=true); using the Java Vector API backend", child.expect("[main] WARN "));
            assertEquals("JAVA VECTOR_API [[12, 13], [10, 11], [14, 15], [90, 91], [94, 95]]", child.expect("codec "));
            assertEquals("e3069283", child.expect("crc "), "CRC-32C of \"123456789\" (the standard check value)");
            assertTrue(child.expect("fault ").startsWith("a fault occurred in "),
                "a truncated mapping gives the JVM's error (copies are guarded), not the end of the JVM");
            assertEquals(0, child.finish());
        }
    }

    /** Child side without the Vector API module: what AUTO says when neither backend can run. */
    public static final class NoBackend {
        public static void main(String[] args) {
            try {
                System.out.println("built " + ErasureCodec.create(2, 1));
            } catch (IllegalStateException e) {
                System.out.println("refused " + e.getMessage());
            }
        }
    }

    /**
     * With the native library off and no {@code --add-modules=jdk.incubator.vector}, no backend runs. Before, AUTO
     * logged "using the Java Vector API backend" and then threw about the missing module alone, without the reason
     * the native library did not load; now nothing claims a fallback and the exception gives both reasons.
     */
    @Test
    void autoWithNeitherBackendSaysWhyForBoth() throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Dsharray.codec.disableNative=true", "-Dorg.slf4j.simpleLogger.logFile=System.out",
            "-cp", System.getProperty("java.class.path"), NoBackend.class.getName()));
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, child.waitFor(), out);
        assertEquals("refused no codec backend is available here: the native library is unavailable (disabled by "
            + "-Dsharray.codec.disableNative=true), and the JAVA backend needs --add-modules=jdk.incubator.vector",
            out.lines().filter(l -> l.startsWith("refused ")).findFirst().orElse(out));
        assertTrue(!out.contains("using the Java Vector API backend"), "no fallback is announced: " + out);
    }

    /** Child side with little direct memory: what NATIVE and then AUTO give. */
    public static final class LittleDirectMemory {
        public static void main(String[] args) {
            for (Backend backend : new Backend[] {Backend.NATIVE, Backend.AUTO}) {
                try {
                    ErasureCodec codec = ErasureCodec.builder(5, 5).backend(backend).build();
                    byte[][] shards = {{0, 1}, {4, 5}, {2, 3}, {6, 7}, {8, 9}, new byte[2], new byte[2], new byte[2],
                        new byte[2], new byte[2]};
                    codec.encode(shards);
                    System.out.println(backend + " built " + Arrays.deepToString(Arrays.copyOfRange(shards, 5, 10)));
                } catch (IllegalStateException e) {
                    System.out.println(backend + " refused " + e.getMessage());
                } catch (Error e) {
                    System.out.println(backend + " error " + e);
                }
            }
        }
    }

    /**
     * With too little direct memory to check the native library's file (-XX:MaxDirectMemorySize=64k: JDK 17 reads the
     * file through a 131 KiB direct buffer), the library's class initialiser threw an OutOfMemoryError: NATIVE failed
     * with it and every later codec, AUTO included, with NoClassDefFoundError for the rest of the JVM's life. Now the
     * failure is recorded as any other: NATIVE is refused with the reason (or builds, where the check needs no direct
     * memory, as on JDK 25), and AUTO works.
     */
    @Test
    void aShortageOfDirectMemoryAtFirstUseLeavesTheCodecUsable() throws Exception {
        try (ChildJvm child = ChildJvm.start(LittleDirectMemory.class, List.of("-XX:MaxDirectMemorySize=64k"))) {
            final String nativeOutcome = child.expect("NATIVE ");
            assertTrue(nativeOutcome.startsWith("built ") || nativeOutcome.startsWith("refused native codec library "
                + "unavailable: java.lang.OutOfMemoryError"), nativeOutcome);
            assertEquals("built [[12, 13], [10, 11], [14, 15], [90, 91], [94, 95]]", child.expect("AUTO "));
            assertEquals(0, child.finish());
        }
    }

    @Test
    void nativeLoadsHereAndAutoPicksIt() throws Exception {
        assertEquals(null, NativeLib.failure(), "in this JVM the native library must load");
        assertEquals(Backend.NATIVE, ErasureCodec.create(2, 1).backend());
    }
}
