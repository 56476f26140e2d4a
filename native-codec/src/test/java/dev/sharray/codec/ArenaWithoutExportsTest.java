package dev.sharray.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Without the project's JVM flags the codec cannot hold a memory segment's arena open (that needs
 * {@code jdk.internal.access}), but it still refuses a buffer whose arena is already closed, through the public
 * API: on JDK 22+, and on JDK 17 for the resource scopes of {@code jdk.incubator.foreign} (which an application adds
 * with {@code --add-modules}). Before, a JVM without the flags (an application that just puts the jar on its
 * classpath) that encoded a 1 MiB shard of a closed shared arena or scope ended with SIGSEGV in the kernels; on JDK
 * 17 with any backend (the Java one in its memory copy).
 */
class ArenaWithoutExportsTest {
    private static final int LEN = 1 << 20; // past malloc's mmap threshold: freed, it is unmapped

    /** Child side, started without the project's flags: encodes, and checksums, buffers of a closed arena. */
    public static void main(String[] args) throws Exception {
        final boolean incubator = Runtime.version().feature() == 17;
        final Class<?> arenaType = Class.forName(incubator ? "jdk.incubator.foreign.ResourceScope" : "java.lang.foreign.Arena");
        final Class<?> segmentType = Class.forName(incubator ? "jdk.incubator.foreign.MemorySegment"
            : "java.lang.foreign.MemorySegment");
        final Object arena = arenaType.getMethod(incubator ? "newSharedScope" : "ofShared").invoke(null);
        final ByteBuffer[] shards = new ByteBuffer[3];
        for (int i = 0; i < shards.length; i++) {
            final Object segment = incubator
                ? segmentType.getMethod("allocateNative", long.class, arenaType).invoke(null, (long) LEN, arena)
                : arenaType.getMethod("allocate", long.class).invoke(arena, (long) LEN);
            shards[i] = (ByteBuffer) segmentType.getMethod("asByteBuffer").invoke(segment);
        }
        final ErasureCodec codec = ErasureCodec.builder(2, 1).backend(Backend.valueOf(args[0])).build();
        codec.encode(shards);
        System.out.println("held " + BufferSessions.available());
        arenaType.getMethod("close").invoke(arena);
        try {
            codec.encode(shards);
            System.out.println("encode ran");
        } catch (IllegalStateException e) {
            System.out.println("encode " + e.getMessage());
        }
        try {
            Crc32c.update(0, shards[2]);
            System.out.println("crc ran");
        } catch (IllegalStateException e) {
            System.out.println("crc " + e.getMessage());
        }
    }

    @Test
    void aBufferOfAClosedArenaIsRefusedAlsoWithoutTheExports() throws Exception {
        final int feature = Runtime.version().feature();
        assumeTrue(feature == 17 || feature >= 22, "java.lang.foreign is final from JDK 22, JDK 17 has its incubator;"
            + " this JVM is " + Runtime.version());
        for (Backend backend : List.of(Backend.NATIVE, Backend.ISAL, Backend.JAVA)) {
            // no project flags: no exports, no Vector API; the child's own java, this classpath (on JDK 17 with the
            // incubating foreign API, as an application that makes such buffers adds it)
            final List<String> command = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:-CreateCoredumpOnCrash", "-XX:ErrorFile=/dev/null", "-cp", System.getProperty("java.class.path")));
            if (feature == 17) {
                command.add("--add-modules=jdk.incubator.foreign");
            }
            command.addAll(List.of(ArenaWithoutExportsTest.class.getName(), backend.name()));
            final Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
            final String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, child.waitFor(), backend + ": " + out);
            final List<String> lines = out.lines().filter(l -> !l.isBlank() && !l.startsWith("WARNING") && !l.contains(" WARN ")).toList();
            assertEquals(List.of("held false",
                "encode shard 0 cannot be used: the arena of its memory segment is closed or confined to another thread"
                    + " (Already closed)",
                "crc the buffer cannot be used: the arena of its memory segment is closed or confined to another thread"
                    + " (Already closed)"), lines, backend.name());
        }
    }
}
