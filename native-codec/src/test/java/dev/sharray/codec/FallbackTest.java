package dev.sharray.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sharray.ChildJvm;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

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
    }

    @Test
    void autoUsesJavaWhenTheNativeLibraryIsUnavailable() throws Exception {
        try (ChildJvm child = ChildJvm.start(FallbackTest.class, List.of("-Dsharray.codec.disableNative=true",
            "-Dorg.slf4j.simpleLogger.logFile=System.out"))) {
            assertEquals("native codec library unavailable: disabled by -Dsharray.codec.disableNative=true",
                child.expect("refused "), "asking for NATIVE explicitly is refused with the reason");
            assertEquals("dev.sharray.codec.ErasureCodec - sharray codec: native library unavailable (disabled by "
                + "-Dsharray.codec.disableNative=true); using the Java Vector API backend", child.expect("[main] WARN "));
            assertEquals("JAVA VECTOR_API [[12, 13], [10, 11], [14, 15], [90, 91], [94, 95]]", child.expect("codec "));
            assertEquals(0, child.finish());
        }
    }

    @Test
    void nativeLoadsHereAndAutoPicksIt() throws Exception {
        assertEquals(null, NativeLib.failure(), "in this JVM the native library must load");
        assertEquals(Backend.NATIVE, ErasureCodec.create(2, 1).backend());
    }
}
